"""The ./dev entry point's arguments (the parts that need no install)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from config import lan

DEV = Path(__file__).resolve().parent.parent / "dev"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["sh", str(DEV), *args], capture_output=True, text=True, timeout=30, check=False
    )


@pytest.mark.parametrize("address", ["abc", "80a", "12.3"])
def test_serve_refuses_an_address_that_is_not_addr_port(address):
    result = run("serve", address)
    assert result.returncode == 2
    assert result.stderr == (
        f"dev: serve takes [ADDR:]PORT, e.g. 8101 or 0.0.0.0:8101, not '{address}'\n"
    )


def test_an_unknown_command_prints_the_usage():
    result = run("nonsense")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "usage: ./dev serve [[ADDR:]PORT] | ./dev hosts [[ADDR:]PORT] | ./dev manage COMMAND"
    )


def prod_branch_commands() -> list[str]:
    """The manage.py commands ./dev prod runs, in order."""
    text = DEV.read_text(encoding="utf-8")
    branch = text[
        text.index("\n    prod)\n") : text.index("\n        ;;", text.index("\n    prod)\n"))
    ]
    return [
        line.split("manage.py ", 1)[1].split()[0]
        for line in branch.splitlines()
        if "manage.py " in line and not line.lstrip().startswith("#")
    ]


def test_prod_sets_up_the_builtin_data_after_migrating():
    assert prod_branch_commands() == ["check", "migrate", "setup_site", "collectstatic"]


def test_serve_loads_the_demo_not_only_the_builtins():
    text = DEV.read_text(encoding="utf-8")
    branch = text[text.index("\n    serve)\n") : text.index("\n    manage)\n")]
    assert "manage.py migrate --noinput\n" in branch
    assert 'manage.py load_demo --site "$site"\n' in branch


def hosts_output(*args: str, **env: str) -> dict[str, str]:
    """``./dev hosts``'s lines as {name: value}, run without the caller's settings."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS")
    }
    environment.update(env)
    result = subprocess.run(
        ["sh", str(DEV), "hosts", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    lines = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    lines["phones"] = result.stdout.splitlines()[-1].split(": ", 1)[1]
    return lines


def test_serve_on_all_interfaces_allows_the_machines_lan_addresses():
    """./dev serve 0.0.0.0:PORT: a phone on the venue's Wi-Fi asks for the laptop's LAN
    address, which must be in ALLOWED_HOSTS (and its origin trusted)."""
    addresses = lan.lan_addresses()
    output = hosts_output("0.0.0.0:8123")
    hosts = output["ALLOWED_HOSTS"].split(",")
    assert hosts[:2] == ["127.0.0.1", "localhost"]
    assert hosts[2 : 2 + len(addresses)] == addresses
    origins = output["CSRF_TRUSTED_ORIGINS"].split(",")
    assert origins == [f"http://{host}:8123" for host in hosts]
    if addresses:
        assert output["phones"] == " ".join(f"http://{ip}:8123/" for ip in addresses)
    else:
        assert output["phones"] == "none (serve on 0.0.0.0 or a LAN address)"


def test_serve_on_the_loopback_allows_only_this_machine():
    output = hosts_output("8123")
    assert output["ALLOWED_HOSTS"] == "127.0.0.1,localhost"
    assert output["CSRF_TRUSTED_ORIGINS"] == "http://127.0.0.1:8123,http://localhost:8123"
    assert output["phones"] == "none (serve on 0.0.0.0 or a LAN address)"


def test_serve_on_one_lan_address_allows_it():
    output = hosts_output("192.168.1.20:8000")
    assert output["ALLOWED_HOSTS"] == "127.0.0.1,localhost,192.168.1.20"
    assert output["phones"] == "http://192.168.1.20:8000/"


def test_serve_keeps_the_allowed_hosts_the_user_set():
    output = hosts_output("0.0.0.0:8000", ALLOWED_HOSTS="venue.example")
    assert output["ALLOWED_HOSTS"] == "venue.example"


def test_hosts_refuses_an_address_that_is_not_addr_port():
    result = run("hosts", "abc")
    assert result.returncode == 2
    assert "not 'abc'" in result.stderr


def test_lan_settings_for_a_wildcard_bind_list_every_given_address():
    settings = lan.serve_settings("0.0.0.0:8000", ["192.168.1.20", "10.0.0.5"])
    hosts = settings["ALLOWED_HOSTS"].split(",")
    assert hosts[:4] == ["127.0.0.1", "localhost", "192.168.1.20", "10.0.0.5"]
    assert settings["PHONES"] == "http://192.168.1.20:8000/ http://10.0.0.5:8000/"
    assert lan.serve_settings("[::]:8000", ["fd00::2"])["PHONES"] == "http://[fd00::2]:8000/"


def test_lan_addresses_are_never_loopback_or_unspecified():
    for address in lan.lan_addresses():
        assert not address.startswith("127.")
        assert address != "0.0.0.0"


@pytest.mark.parametrize("command", ["backup", "restore"])
def test_backup_and_restore_need_the_backup_file(command):
    result = run(command)
    assert result.returncode == 2
    assert result.stderr == (
        f"dev: {command} takes the backup file, e.g. ./dev {command} backups/site.backup\n"
    )


def test_backup_then_restore_into_a_new_sqlite_file(tmp_path):
    """./dev backup FILE and ./dev restore FILE run manage.py backup_site and restore_site
    on the site's database (DATABASE_URL), without installing anything."""
    site = tmp_path / "site.sqlite3"
    with sqlite3.connect(site) as conn:
        conn.execute("CREATE TABLE django_migrations (id INTEGER PRIMARY KEY, app TEXT)")
        conn.execute("INSERT INTO django_migrations (app) VALUES ('tournaments')")
    conn.close()
    environment = {**os.environ, "DATABASE_URL": f"sqlite:///{site}"}

    def dev(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["sh", str(DEV), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=environment,
        )

    saved = dev("backup", str(tmp_path / "site.backup"))
    assert saved.returncode == 0, saved.stderr
    assert saved.stdout.startswith(f"Backed up to {tmp_path / 'site.backup'} (")

    refused = dev("restore", str(tmp_path / "site.backup"))
    assert refused.returncode == 1
    assert f"The database {site} is not empty (1 tables)." in refused.stderr

    copy = tmp_path / "copy.sqlite3"
    restored = dev("restore", str(tmp_path / "site.backup"), "--database-url", f"sqlite:///{copy}")
    assert restored.returncode == 0, restored.stderr
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT app FROM django_migrations").fetchall() == [("tournaments",)]
    conn.close()
