"""A backup holds password hashes, e-mail addresses and webhook secrets: the file is its
owner's only (0600) from its first byte, not only once it is complete (#15)."""

from __future__ import annotations

import os
import stat

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from config import backup

pytestmark = pytest.mark.django_db(transaction=True)

ON_POSTGRES = connection.vendor == "postgresql"


@pytest.fixture
def open_umask():
    """The usual umask, under which a file created without a mode is world-readable."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def partial_files(directory) -> list:
    return sorted(p for p in directory.iterdir() if p.name.endswith(".partial"))


def a_user():
    get_user_model().objects.create_user("organizer", password="pw")


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's online backup of the site's file")
def test_the_sqlite_backup_is_private_while_it_is_being_written(tmp_path, open_umask, monkeypatch):
    a_user()
    seen = []
    original_open = backup._sqlite_open

    class Observed:
        """The site's connection, whose backup looks at the partial file once the rows
        are in it."""

        def __init__(self, conn):
            self._conn = conn

        def backup(self, target, **kwargs):
            self._conn.backup(target, **kwargs)
            seen.extend((p.name, mode(p)) for p in partial_files(tmp_path))

        def __getattr__(self, name):
            return getattr(self._conn, name)

    monkeypatch.setattr(
        backup, "_sqlite_open", lambda path, how: Observed(original_open(path, how))
    )
    backup.backup(tmp_path / "site.backup")
    assert len(seen) == 1
    assert seen[0][0].startswith(".site.backup.")
    assert seen[0][1] == 0o600
    assert mode(tmp_path / "site.backup") == 0o600
    assert partial_files(tmp_path) == []


@pytest.mark.skipif(ON_POSTGRES, reason="a SQLite file restored into a new file")
def test_a_sqlite_file_restored_into_a_new_file_is_private(tmp_path, open_umask, monkeypatch):
    a_user()
    backup.backup(tmp_path / "site.backup")
    restored = tmp_path / "restored.sqlite3"
    seen = []
    original_open = backup._sqlite_open

    class Observed:
        def __init__(self, conn):
            self._conn = conn

        def backup(self, target, **kwargs):
            self._conn.backup(target, **kwargs)
            seen.extend(mode(p) for p in partial_files(tmp_path))

        def __getattr__(self, name):
            return getattr(self._conn, name)

    monkeypatch.setattr(
        backup, "_sqlite_open", lambda path, how: Observed(original_open(path, how))
    )
    backup.restore(tmp_path / "site.backup", database_url=f"sqlite:///{restored}")
    assert seen == [0o600]
    assert mode(restored) == 0o600
    assert partial_files(tmp_path) == []


@pytest.mark.skipif(not ON_POSTGRES, reason="pg_dump is used for PostgreSQL only")
def test_the_pg_dump_backup_is_private_while_it_is_being_written(tmp_path, open_umask, monkeypatch):
    a_user()
    seen = []
    original_run = backup._run

    def observed_run(command, config, what):
        original_run(command, config, what)
        (file_option,) = [part for part in command if part.startswith("--file=")]
        partial = file_option.removeprefix("--file=")
        seen.append((os.path.basename(partial), os.path.getsize(partial) > 0, mode(partial)))

    monkeypatch.setattr(backup, "_run", observed_run)
    backup.backup(tmp_path / "site.backup")
    assert len(seen) == 1
    name, written, partial_mode = seen[0]
    assert name.startswith(".site.backup.")
    assert name.endswith(".partial")
    assert written
    assert partial_mode == 0o600
    assert mode(tmp_path / "site.backup") == 0o600
    assert backup.backup_kind(tmp_path / "site.backup") == "postgresql"
    assert partial_files(tmp_path) == []


def test_the_temporary_file_is_private_from_its_creation(tmp_path, open_umask):
    destination = tmp_path / "site.backup"
    with backup._temporary_next_to(destination) as temporary:
        assert temporary.exists()
        assert temporary.stat().st_size == 0
        assert mode(temporary) == 0o600
    assert not temporary.exists()


def test_the_directory_is_flushed_after_the_rename(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def recording_fsync(descriptor):
        synced.append(stat.S_ISDIR(os.fstat(descriptor).st_mode))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    temporary = tmp_path / ".x.partial"
    temporary.write_bytes(b"data")
    backup._finish(temporary, tmp_path / "x", private=True)
    assert synced == [False, True]  # the file, then its directory
    assert (tmp_path / "x").read_bytes() == b"data"
    assert mode(tmp_path / "x") == 0o600
