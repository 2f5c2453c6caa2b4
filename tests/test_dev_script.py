"""The ./dev entry point's arguments (the parts that need no install)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

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
    assert result.stderr.startswith("usage: ./dev serve [[ADDR:]PORT] | ./dev manage COMMAND")


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
    assert 'manage.py load_demo --site "http://$address/"\n' in branch
