"""The restore drill (docs/backup.md): a site with data in every app is backed up, restored
into a new database and compared table by table (row counts and checksums); the restored
copy answers queries with the same bytes. Runs on the backend the suite runs on: SQLite
restores into a new file, PostgreSQL into a new database made (and dropped) here."""

from __future__ import annotations

import secrets
import shutil
import sqlite3
from io import StringIO
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from cardpool import services as cardpool_services
from cardpool.models import Game, ImportJob
from config import backup
from decks import services as deck_services
from tournaments import exports, services, tokens
from tournaments.demo import DEMO_DECK, DEMO_PASSWORD
from tournaments.models import (
    Event,
    ExportJob,
    Registration,
    TokenScope,
    Webhook,
    WebhookDelivery,
    WebhookKind,
)
from tournaments.services import deck_checks

pytestmark = pytest.mark.django_db(transaction=True)

ON_POSTGRES = connection.vendor == "postgresql"
CARD_FILE = "name,set,card_type,ap,dp\nバックアップ 太郎,first,CHARACTER,4,2\n".encode()
# Tables the drill must have filled: a backup that lost any of them would still "match"
# if both sides were empty.
FILLED_TABLES = {
    "auth_user",
    "axes_accessattempt",
    "cardpool_card",
    "cardpool_importjob",
    "decks_deck",
    "decks_deckcheck",
    "django_migrations",
    "django_session",
    "rules_rulesdocument",
    "rules_section",
    "tournaments_apitoken",
    "tournaments_auditentry",
    "tournaments_deckcheck",
    "tournaments_event",
    "tournaments_exportjob",
    "tournaments_match",
    "tournaments_penalty",
    "tournaments_registration",
    "tournaments_resultreport",
    "tournaments_round",
    "tournaments_webhook",
    "tournaments_webhookdelivery",
}


def database_url(name: str) -> str:
    """A URL for the database ``name`` on the server the suite uses."""
    config = connection.settings_dict
    credentials = quote(config["USER"] or "", safe="")
    if config["PASSWORD"]:
        credentials += ":" + quote(config["PASSWORD"], safe="")
    host = config["HOST"] or "127.0.0.1"
    port = config["PORT"] or 5432
    return f"postgres://{credentials}@{host}:{port}/{name}"


@pytest.fixture
def new_database(tmp_path):
    """The URL of a new, empty database on the suite's backend, removed afterwards."""
    if not ON_POSTGRES:
        yield f"sqlite:///{tmp_path / 'restored.sqlite3'}"
        return
    name = f"crossover_backup_drill_{secrets.token_hex(4)}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_url(name)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fill_the_site() -> SimpleNamespace:
    """Data in every app, made the way the site makes it: the demo (card pool, formats,
    infractions, rules, four events with players, rounds, results and decks), then a
    penalty, a judge's deck check, a finished export with its file, a card import with
    its uploaded file, API tokens, a webhook with a delivery, a session and a failed
    login."""
    call_command("load_demo", "--no-admin", stdout=StringIO())
    event = Event.objects.get(name="Demo: mid-Swiss")
    organizer = event.organizer
    registration = Registration.objects.filter(event=event).order_by("pk").first()
    services.issue_penalty(
        registration, actor=organizer, kind="warning", infraction="Slow play", note="drill"
    )
    deck_checks.record_deck_check(registration, actor=organizer, counted_text=DEMO_DECK)
    deck_services.save_deck(
        owner=registration.player, fmt=event.format, name="Satomi", text=DEMO_DECK
    )

    export = exports.start_export_job(organizer, event, kind="standings", file_format="xlsx")
    exports.run_export_job(export.pk)
    export.refresh_from_db()
    assert export.status == ExportJob.Status.DONE, export.error

    game = Game.objects.get(slug="crossover")
    upload = cardpool_services.create_import_job(
        game=game, filename="drill.csv", content=CARD_FILE, user=organizer
    )
    cardpool_services.run_import_job(upload.pk)
    upload.refresh_from_db()
    assert upload.status == ImportJob.Status.DONE, upload.report

    personal = tokens.create_token(organizer, name="scoreboard", scope=TokenScope.READ)
    tokens.create_token(organizer, name="results", scope=TokenScope.WRITE, event=event)
    hook = Webhook.objects.create(
        event=event,
        url="https://hooks.example.org/crossover",
        secret="a-drill-secret-of-some-length",
        kinds=[WebhookKind.ROUND_PUBLISHED],
        created_by=organizer,
    )
    WebhookDelivery.objects.create(
        webhook=hook, event=event, kind=WebhookKind.ROUND_PUBLISHED, body='{"drill": true}'
    )
    Client().force_login(organizer)  # a session row
    assert not Client().login(username=organizer.username, password="wrong")  # axes
    return SimpleNamespace(
        event=event,
        organizer=organizer,
        export=export,
        export_bytes=bytes(ExportJob.objects.get(pk=export.pk).content),
        upload=upload,
        token=personal,
    )


def test_a_backup_restored_into_a_new_database_has_every_table_and_row(tmp_path, new_database):
    site = fill_the_site()
    path = tmp_path / "site.backup"

    assert backup.backup(path) == path
    assert backup.backup_kind(path) == ("postgresql" if ON_POSTGRES else "sqlite")
    assert [p.name for p in tmp_path.iterdir()] == ["site.backup"]  # no temporary left
    assert path.stat().st_mode & 0o777 == 0o600  # password hashes, e-mails, secrets
    source = backup.table_fingerprints(connection)
    assert {table for table, fp in source.items() if fp.rows} >= FILLED_TABLES

    backup.restore(path, database_url=new_database)

    with backup.attached(new_database) as restored_db:
        restored = backup.table_fingerprints(restored_db)
        assert sorted(restored) == sorted(source)
        for table in source:
            assert restored[table] == source[table], table
        assert backup.compare_fingerprints(source, restored) == []

        # The restored site answers: the stored export file and the uploaded card file
        # are the same bytes, a player's password still works, the token still resolves,
        # and the restored database takes new rows.
        def one(sql, *params):
            with restored_db.cursor() as cursor:
                cursor.execute(sql, params)
                return cursor.fetchone()

        filename, content = one(
            "SELECT filename, content FROM tournaments_exportjob WHERE id = %s", site.export.pk
        )
        assert filename == site.export.filename
        assert bytes(content) == site.export_bytes
        assert site.export_bytes.startswith(b"PK")  # an XLSX (zip) file
        (upload,) = one("SELECT content FROM cardpool_importjob WHERE id = %s", site.upload.pk)
        assert bytes(upload) == CARD_FILE
        (password,) = one("SELECT password FROM auth_user WHERE username = %s", "demo-player01")
        assert check_password(DEMO_PASSWORD, password)
        (secret_hash,) = one(
            "SELECT secret_hash FROM tournaments_apitoken WHERE prefix = %s",
            site.token.token.prefix,
        )
        assert secret_hash == tokens.hash_token(site.token.secret)
        assert one("SELECT count(*) FROM tournaments_penalty WHERE note = %s", "drill") == (1,)

    # The command-line check says the same (for PostgreSQL it restores the backup into a
    # scratch database of its own, dropped afterwards).
    out = _call("verify_backup", str(path), database_url=new_database)
    assert out.splitlines()[-1] == (
        f"The backup and the database match: {len(source)} tables, "
        f"{sum(fp.rows for fp in source.values()):,} rows."
    )
    assert "same       tournaments_exportjob" in out
    if ON_POSTGRES:
        assert _scratch_databases() == []

    # It takes new rows, with fresh ids (PostgreSQL's sequences came along).
    with backup.attached(new_database) as restored_db, restored_db.cursor() as cursor:
        cursor.execute("SELECT max(id), min(content_type_id) FROM auth_permission")
        last, content_type = cursor.fetchone()
        cursor.execute(
            "INSERT INTO auth_permission (name, content_type_id, codename) "
            "VALUES ('Can drill', %s, 'drill')",
            [content_type],
        )
        cursor.execute("SELECT id FROM auth_permission WHERE codename = 'drill'")
        assert cursor.fetchone()[0] > last


def _call(*args, **options) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


def _scratch_databases() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", ["%_verify_%"])
        return [
            row[0]
            for row in cursor.fetchall()
            if row[0].startswith(connection.settings_dict["NAME"])
        ]


def small_site():
    organizer = get_user_model().objects.create_user("organizer", password="pw")
    get_user_model().objects.create_user("player", first_name="Aiko", password="pw")
    return organizer


def test_a_changed_row_in_the_restored_database_is_reported_by_table(tmp_path, new_database):
    small_site()
    path = tmp_path / "site.backup"
    backup.backup(path)
    backup.restore(path, database_url=new_database)
    source = backup.table_fingerprints(connection)
    with backup.attached(new_database) as restored_db:
        with restored_db.cursor() as cursor:
            cursor.execute("UPDATE auth_user SET first_name = 'Aika' WHERE username = 'player'")
        changed = backup.table_fingerprints(restored_db)
    assert backup.compare_fingerprints(source, changed) == ["auth_user"]
    assert changed["auth_user"].rows == source["auth_user"].rows
    assert changed["auth_user"].sha256 != source["auth_user"].sha256

    with pytest.raises(CommandError) as failure:
        _call("verify_backup", str(path), database_url=new_database)
    assert str(failure.value) == (
        f"1 of {len(source)} tables differ between the backup and the database: auth_user"
    )


def test_verify_lists_every_table_and_marks_the_different_one(tmp_path, new_database):
    small_site()
    path = tmp_path / "site.backup"
    backup.backup(path)
    backup.restore(path, database_url=new_database)
    with backup.attached(new_database) as restored_db, restored_db.cursor() as cursor:
        cursor.execute("INSERT INTO auth_group (name) VALUES ('judges')")
    out = StringIO()
    with pytest.raises(
        CommandError, match=r"differ between the backup and the database: auth_group$"
    ):
        call_command("verify_backup", str(path), database_url=new_database, stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(backup.table_fingerprints(connection))
    [different] = [line for line in lines if line.startswith("DIFFERENT")]
    assert different.split()[1] == "auth_group"
    assert "backup: 0 rows, sha256 e3b0c44298fc1c14; database: 1 rows, sha256 " in different
    assert any(line.split()[:2] == ["same", "auth_user"] for line in lines)


# --- refusals: each with a clear message, nothing half-written ---------------------------


def test_restore_refuses_a_database_that_is_not_empty(tmp_path, new_database):
    small_site()
    path = tmp_path / "site.backup"
    backup.backup(path)
    backup.restore(path, database_url=new_database)
    with pytest.raises(backup.BackupError, match=r"is not empty \(\d+ tables\)\. .*--force"):
        backup.restore(path, database_url=new_database)
    # --force replaces the contents: a row added since is gone again.
    with backup.attached(new_database) as restored_db, restored_db.cursor() as cursor:
        cursor.execute("INSERT INTO auth_group (name) VALUES ('late')")
    out = _call("restore_site", str(path), database_url=new_database, force=True, verify=True)
    source = backup.table_fingerprints(connection)
    with backup.attached(new_database) as restored_db:
        restored = backup.table_fingerprints(restored_db)
    assert backup.compare_fingerprints(source, restored) == []
    assert out.splitlines()[0] == f"Restored {path} into {new_database}."
    assert out.splitlines()[-1] == (
        f"The backup and the restored database match: {len(source)} tables, "
        f"{sum(fp.rows for fp in source.values()):,} rows."
    )


def test_restore_refuses_a_missing_file_and_a_file_that_is_no_backup(tmp_path, new_database):
    with pytest.raises(
        backup.BackupError,
        match=r"^The backup file .*nowhere\.backup does not exist\.$",
    ):
        backup.restore(tmp_path / "nowhere.backup", database_url=new_database)
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    with pytest.raises(backup.BackupError) as failure:
        backup.restore(text, database_url=new_database)
    assert str(failure.value) == (
        f"{text} is not a backup file: it is neither a SQLite database nor a pg_dump "
        "custom-format archive."
    )
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    with pytest.raises(backup.BackupError) as failure:
        backup.fingerprints_of_backup(other)
    assert str(failure.value) == (
        f"{other} is a SQLite database but not a backup of this site "
        "(it has no django_migrations table)."
    )
    with pytest.raises(CommandError, match="does not exist"):
        _call("restore_site", str(tmp_path / "nowhere.backup"), database_url=new_database)


def test_verify_refuses_a_sqlite_database_that_does_not_exist(tmp_path):
    small_site()
    path = tmp_path / "site.backup"
    backup.backup(path)
    missing = tmp_path / "typo.sqlite3"
    with pytest.raises(CommandError) as failure:
        _call("verify_backup", str(path), database_url=f"sqlite:///{missing}")
    assert str(failure.value) == f"The database file {missing} does not exist."
    assert not missing.exists()


def test_a_backup_of_the_other_backend_is_refused(tmp_path, new_database):
    other = tmp_path / "other.backup"
    if ON_POSTGRES:
        with sqlite3.connect(other) as conn:
            conn.execute("CREATE TABLE django_migrations (id INTEGER PRIMARY KEY)")
        conn.close()
        message = f"{other} is a SQLite backup; the target database is PostgreSQL."
    else:
        other.write_bytes(b"PGDMP\x01\x0e\x00")
        message = f"{other} is a PostgreSQL backup; the target database is SQLite."
    with pytest.raises(backup.BackupError, match=f"^{message}"):
        backup.restore(other, database_url=new_database)


def test_a_backup_into_a_missing_directory_writes_nothing(tmp_path):
    with pytest.raises(backup.BackupError) as failure:
        backup.backup(tmp_path / "missing" / "site.backup")
    assert str(failure.value) == f"The directory {tmp_path / 'missing'} does not exist."
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not ON_POSTGRES, reason="pg_dump is used for PostgreSQL only")
def test_without_pg_dump_the_backup_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(backup.BackupError) as failure:
        backup.backup(tmp_path / "site.backup")
    assert str(failure.value).startswith("pg_dump is not installed (or not on PATH).")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not ON_POSTGRES, reason="a PostgreSQL server to be unreachable")
def test_an_unreachable_database_is_named_and_nothing_is_written(tmp_path):
    url = "postgres://postgres@127.0.0.1:1/crossover"
    with pytest.raises(backup.BackupError) as failure:
        backup.backup(tmp_path / "site.backup", database_url=url)
    assert str(failure.value).startswith("Cannot connect to the PostgreSQL database 'crossover': ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(ON_POSTGRES, reason="the SQLite file of the site")
def test_a_failed_sqlite_backup_leaves_no_partial_file(tmp_path, monkeypatch):
    def broken_backup(self, target, **kwargs):
        target.execute("CREATE TABLE half (x)")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(backup, "_sqlite_open", _wrapping_open(broken_backup))
    with pytest.raises(backup.BackupError, match=r"failed: disk I/O error\.$"):
        backup.backup(tmp_path / "site.backup")
    assert list(tmp_path.iterdir()) == []


def _wrapping_open(backup_method):
    """``_sqlite_open`` whose connections' ``backup`` is ``backup_method``."""
    original = backup._sqlite_open

    class Wrapped:
        def __init__(self, conn):
            self._conn = conn

        def backup(self, target, **kwargs):
            return backup_method(self, target, **kwargs)

        def __getattr__(self, name):
            return getattr(self._conn, name)

    return lambda path, mode: Wrapped(original(path, mode))


def test_the_site_database_file_must_exist_for_a_sqlite_backup(tmp_path):
    missing = tmp_path / "gone.sqlite3"
    with pytest.raises(backup.BackupError) as failure:
        backup.backup(tmp_path / "site.backup", database_url=f"sqlite:///{missing}")
    assert str(failure.value) == f"The site's database file {missing} does not exist."
    assert not missing.exists()  # never created by looking
    assert list(tmp_path.iterdir()) == []


def test_fingerprints_depend_on_every_column_and_on_row_order_by_key():
    rows = [(1, "a", b"\x00", None), (2, "b", b"\x01", 1.5)]
    line = b"".join(backup._row_line(row) for row in rows)
    assert line == (b'[1,"a",["bytes","00"],null]\n[2,"b",["bytes","01"],["float","1.5"]]\n')
    assert backup._row_line((1, "1")) != backup._row_line((1, 1))
    assert backup._row_line((None,)) != backup._row_line(("",))


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's online backup of the site's file")
def test_a_sqlite_backup_runs_beside_a_writer_and_copies_only_what_was_committed(tmp_path):
    """The laptop's site keeps serving while it is backed up: a request in the middle of
    writing neither blocks the backup nor ends up half in it."""
    small_site()
    writer = sqlite3.connect(connection.settings_dict["NAME"], timeout=1)
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO auth_group (name) VALUES ('not yet committed')")
        backup.backup(tmp_path / "site.backup")
        writer.commit()
    finally:
        writer.close()
    copy = backup.fingerprints_of_backup(tmp_path / "site.backup")
    assert copy["auth_group"].rows == 0
    assert copy["auth_user"].rows == 2
    assert backup.table_fingerprints(connection)["auth_group"].rows == 1
