"""Back up and restore the whole site's database, and fingerprint it to prove a copy whole.

Everything the site keeps lives in its database: events, players, results, decks, rules,
accounts, sessions, API tokens and webhooks, and the files too (finished exports in
``ExportJob.content``, uploaded card files in ``ImportJob.content``; there is no media
directory). So a copy of the database is a copy of the site.

- SQLite (the laptop): :func:`backup` uses SQLite's online backup API
  (``sqlite3.Connection.backup``), which copies a consistent snapshot while the site keeps
  running; the backup file is itself a SQLite database.
- PostgreSQL (the server): :func:`backup` runs ``pg_dump --format=custom`` (a consistent
  snapshot too) and :func:`restore` runs ``pg_restore`` in one transaction.

Both write to a temporary file next to the destination and rename it when complete, so a
failure never leaves half a backup (or half a restored SQLite file) under the real name.
Every failure raises :class:`BackupError` with a message meant for the person at the
keyboard.

:func:`table_fingerprints` gives each table's row count and a SHA-256 of its rows in a
canonical text form, read in primary-key order: the same data gives the same fingerprint
on the same backend, so a restored copy can be compared table by table with its source.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import environ
from django.db import connections
from django.db.utils import load_backend

SQLITE = "django.db.backends.sqlite3"
POSTGRESQL = "django.db.backends.postgresql"
SQLITE_HEADER = b"SQLite format 3\x00"
PG_DUMP_HEADER = b"PGDMP"
# A Django site's database always has this table; a SQLite file without it is not a
# backup of this site.
MIGRATIONS_TABLE = "django_migrations"
FETCH_ROWS = 500
# pg_dump and pg_restore get the connection from libpq's variables (no password on the
# command line, where `ps` would show it).
PG_OPTION_VARIABLES = {
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "service": "PGSERVICE",
    "passfile": "PGPASSFILE",
    "options": "PGOPTIONS",
    "connect_timeout": "PGCONNECT_TIMEOUT",
}


class BackupError(Exception):
    """A backup, restore or comparison that cannot go on; the message says why and what
    to do."""


@dataclass(frozen=True)
class Fingerprint:
    rows: int
    sha256: str


# --- fingerprints --------------------------------------------------------------------


def _canonical(value):
    """One column value as JSON-ready data that reads the same wherever it came from."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return ["float", repr(value)]
    if isinstance(value, bytes | bytearray | memoryview):
        return ["bytes", bytes(value).hex()]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return [type(value).__name__, value.isoformat()]
    if isinstance(value, decimal.Decimal | uuid.UUID | dt.timedelta):
        return [type(value).__name__, str(value)]
    if isinstance(value, dict | list):
        return ["json", json.dumps(value, sort_keys=True, ensure_ascii=False)]
    return [type(value).__name__, str(value)]


def _row_line(row) -> bytes:
    return (
        json.dumps([_canonical(v) for v in row], ensure_ascii=False, separators=(",", ":")) + "\n"
    ).encode()


def _table_fingerprint(connection, table: str) -> Fingerprint:
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        keys = connection.introspection.get_primary_key_columns(cursor, table) or []
    digest = hashlib.sha256()
    count = 0
    # A server-side cursor on PostgreSQL: a table of stored export files is not read into
    # memory at once.
    with connection.chunked_cursor() as cursor:
        if keys:
            order = ", ".join(quote(key) for key in keys)
            cursor.execute(f"SELECT * FROM {quote(table)} ORDER BY {order}")
            while rows := cursor.fetchmany(FETCH_ROWS):
                for row in rows:
                    digest.update(_row_line(row))
                    count += 1
        else:
            # No primary key: order by the whole canonical row, independent of collation.
            cursor.execute(f"SELECT * FROM {quote(table)}")
            lines = sorted(_row_line(row) for row in cursor.fetchall())
            for line in lines:
                digest.update(line)
            count = len(lines)
    return Fingerprint(count, digest.hexdigest())


@contextlib.contextmanager
def _read_snapshot(connection) -> Iterator[None]:
    """Read every table at one moment when the connection is free to open a transaction
    (a site still serving requests may write between two tables otherwise)."""
    connection.ensure_connection()
    if connection.in_atomic_block or not connection.get_autocommit():
        yield  # the caller's transaction already decides what is visible
        return
    if connection.vendor == "postgresql":
        connection.set_autocommit(False)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        finally:
            connection.rollback()
            connection.set_autocommit(True)
    elif connection.vendor == "sqlite":
        raw = connection.connection
        if raw.in_transaction:
            yield
            return
        # A deferred read transaction: in WAL mode it sees one snapshot without locking
        # writers out.
        raw.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            raw.execute("ROLLBACK")
    else:
        yield


def table_fingerprints(connection=None) -> dict[str, Fingerprint]:
    """``{table: Fingerprint(rows, sha256)}`` for every table of the database behind
    ``connection`` (a Django database connection; the default one when omitted), Django's
    own tables included. Rows are read in primary-key order (all columns where a table has
    no primary key) and hashed one canonical JSON line each."""
    connection = connection or connections["default"]
    with _read_snapshot(connection):
        with connection.cursor() as cursor:
            tables = sorted(
                info.name
                for info in connection.introspection.get_table_list(cursor)
                if info.type == "t"
            )
        return {table: _table_fingerprint(connection, table) for table in tables}


def compare_fingerprints(
    expected: dict[str, Fingerprint], actual: dict[str, Fingerprint]
) -> list[str]:
    """The tables whose rows differ (or that only one side has), sorted by name."""
    return sorted(
        table
        for table in expected.keys() | actual.keys()
        if expected.get(table) != actual.get(table)
    )


def comparison_lines(
    expected: dict[str, Fingerprint],
    actual: dict[str, Fingerprint],
    *,
    expected_name: str = "backup",
    actual_name: str = "database",
) -> list[str]:
    """One line per table: ``same`` with its rows and checksum, or ``DIFFERENT`` with
    both sides."""

    def side(fingerprint: Fingerprint | None) -> str:
        if fingerprint is None:
            return "no such table"
        return f"{fingerprint.rows} rows, sha256 {fingerprint.sha256[:16]}"

    lines = []
    width = max((len(table) for table in expected.keys() | actual.keys()), default=0)
    for table in sorted(expected.keys() | actual.keys()):
        mine, theirs = expected.get(table), actual.get(table)
        if mine == theirs:
            lines.append(f"same       {table:<{width}}  {side(mine)}")
        else:
            lines.append(
                f"DIFFERENT  {table:<{width}}  {expected_name}: {side(mine)}; "
                f"{actual_name}: {side(theirs)}"
            )
    return lines


# --- other databases by URL -----------------------------------------------------------


def database_settings(url: str | None = None) -> dict:
    """A Django DATABASES entry: the site's default database, or the one ``url`` names
    (``postgres://user@host:5432/name`` or ``sqlite:////absolute/path.sqlite3``)."""
    if url is None:
        return dict(connections["default"].settings_dict)
    if "://" not in url:
        raise BackupError(
            f"{url!r} is not a database URL; give e.g. postgres://user@127.0.0.1:5432/name "
            "or sqlite:////absolute/path.sqlite3"
        )
    config = environ.Env.db_url_config(url)
    if config.get("ENGINE") not in (SQLITE, POSTGRESQL):
        raise BackupError(f"{url!r}: only postgres:// and sqlite:// databases are supported.")
    if not config.get("NAME") or config["NAME"] == ":memory:":
        raise BackupError(f"{url!r} names no database.")
    if config["ENGINE"] == SQLITE and not os.path.isabs(config["NAME"]):
        raise BackupError(
            f"{url!r}: give the SQLite file as an absolute path (sqlite:////absolute/path)."
        )
    return config


@contextlib.contextmanager
def _attach(config: dict) -> Iterator:
    """A Django connection of its own to the database ``config`` describes, closed after
    the block. Not registered in ``django.db.connections``: the site's aliases stay as they
    are."""
    alias = f"backup_{secrets.token_hex(4)}"
    # configure_settings fills in Django's defaults, and insists on a "default" entry.
    configured = connections.configure_settings(
        {"default": dict(connections.settings["default"]), alias: dict(config)}
    )[alias]
    wrapper = load_backend(configured["ENGINE"]).DatabaseWrapper(configured, alias)
    try:
        yield wrapper
    finally:
        wrapper.close()


@contextlib.contextmanager
def attached(url: str) -> Iterator:
    """A Django database connection to the database ``url`` names, for the block (raw
    cursors and :func:`table_fingerprints`)."""
    config = database_settings(url)
    if config["ENGINE"] == SQLITE and not Path(config["NAME"]).exists():
        # Django would create an empty file and compare against nothing.
        raise BackupError(f"The database file {config['NAME']} does not exist.")
    with _attach(config) as wrapper:
        yield wrapper


# --- files ------------------------------------------------------------------------------


def backup_kind(path: str | os.PathLike) -> str:
    """``"sqlite"`` or ``"postgresql"`` from a backup file's first bytes."""
    path = Path(path)
    if not path.exists():
        raise BackupError(f"The backup file {path} does not exist.")
    if not path.is_file():
        raise BackupError(f"{path} is not a file.")
    with path.open("rb") as handle:
        head = handle.read(len(SQLITE_HEADER))
    if head.startswith(SQLITE_HEADER):
        return "sqlite"
    if head.startswith(PG_DUMP_HEADER):
        return "postgresql"
    raise BackupError(
        f"{path} is not a backup file: it is neither a SQLite database nor a pg_dump "
        "custom-format archive."
    )


@contextlib.contextmanager
def _temporary_next_to(destination: Path) -> Iterator[Path]:
    """A fresh, empty temporary file in ``destination``'s directory (so the final rename
    stays on one file system); removed unless the caller renamed it away.

    The file is kept as mkstemp made it, readable by its owner only (0600), from the first
    byte written: SQLite takes an empty file as an empty database, and ``pg_dump --file``
    truncates the file and keeps its mode. (Recreated by them, it would have the umask's
    mode, often world-readable, while the password hashes were being written into it.)"""
    directory = destination.parent
    if not directory.is_dir():
        raise BackupError(f"The directory {directory} does not exist.")
    handle, name = tempfile.mkstemp(
        prefix=f".{destination.name}.", suffix=".partial", dir=directory
    )
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
    finally:
        for leftover in (temporary, Path(f"{temporary}-journal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _finish(temporary: Path, destination: Path, *, private: bool = False) -> None:
    """Flush ``temporary`` to disk and put it in place under ``destination``'s name;
    ``private``: readable by its owner only (a backup holds password hashes, e-mail
    addresses and webhook secrets)."""
    if private:
        temporary.chmod(0o600)
    with temporary.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, destination)
    _fsync_directory(destination.parent)


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX; a no-op where directories cannot be
    opened, such as Windows)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# --- SQLite ---------------------------------------------------------------------------------


def _sqlite_open(path: Path, mode: str) -> sqlite3.Connection:
    """Open an existing SQLite file (``mode`` ``ro`` or ``rw``) without ever creating one."""
    try:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, timeout=20)
    except sqlite3.Error as exc:
        raise BackupError(f"Cannot open the SQLite database {path}: {exc}.") from exc


def _sqlite_tables(conn: sqlite3.Connection) -> list[str]:
    return [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]


def _check_sqlite_backup(path: Path) -> None:
    conn = _sqlite_open(path, "ro")
    try:
        result = conn.execute("PRAGMA quick_check").fetchone()[0]
        tables = _sqlite_tables(conn)
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a usable SQLite backup: {exc}.") from exc
    finally:
        conn.close()
    if result != "ok":
        raise BackupError(f"{path} is damaged (SQLite's quick_check: {result}).")
    if MIGRATIONS_TABLE not in tables:
        raise BackupError(
            f"{path} is a SQLite database but not a backup of this site "
            f"(it has no {MIGRATIONS_TABLE} table)."
        )


def _sqlite_backup(config: dict, destination: Path) -> None:
    source_path = Path(config["NAME"])
    if not source_path.exists():
        raise BackupError(f"The site's database file {source_path} does not exist.")
    source = _sqlite_open(source_path, "rw")
    try:
        with _temporary_next_to(destination) as temporary:
            target = sqlite3.connect(temporary)
            try:
                # One step (pages=-1): a consistent copy of the database as it is now,
                # taken while the site keeps reading and writing (WAL).
                source.backup(target)
                # One self-contained file, whatever the site's journal mode.
                target.execute("PRAGMA journal_mode=DELETE")
                result = target.execute("PRAGMA quick_check").fetchone()[0]
            except sqlite3.Error as exc:
                raise BackupError(f"Backing up {source_path} failed: {exc}.") from exc
            finally:
                target.close()
            if result != "ok":
                raise BackupError(f"The copy of {source_path} failed its check: {result}.")
            _finish(temporary, destination, private=True)
    finally:
        source.close()


def _sqlite_restore(source_path: Path, config: dict, *, force: bool) -> None:
    _check_sqlite_backup(source_path)
    target_path = Path(config["NAME"])
    source = _sqlite_open(source_path, "ro")
    try:
        if target_path.exists() and target_path.stat().st_size > 0:
            target = _sqlite_open(target_path, "rw")
            try:
                tables = _sqlite_tables(target)
                if tables and not force:
                    raise BackupError(
                        f"The database {target_path} is not empty ({len(tables)} tables). "
                        "Restore into a new file, or replace its contents with --force."
                    )
                # Into the open database: SQLite replaces its contents in one transaction,
                # under the same locks the site uses.
                source.backup(target)
            except sqlite3.Error as exc:
                raise BackupError(f"Restoring into {target_path} failed: {exc}.") from exc
            finally:
                target.close()
            return
        for stale in (Path(f"{target_path}-wal"), Path(f"{target_path}-shm")):
            if stale.exists():
                raise BackupError(
                    f"{stale} is left over from an earlier database at {target_path}; "
                    "move it away before restoring there."
                )
        with _temporary_next_to(target_path) as temporary:
            target = sqlite3.connect(temporary)
            try:
                source.backup(target)
            except sqlite3.Error as exc:
                raise BackupError(f"Restoring into {target_path} failed: {exc}.") from exc
            finally:
                target.close()
            # The site's database holds password hashes too: its owner's only.
            _finish(temporary, target_path, private=True)
    finally:
        source.close()


# --- PostgreSQL -------------------------------------------------------------------------


def _pg_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} is not installed (or not on PATH). Install PostgreSQL's client tools, "
            "of the server's major version or newer (Debian: apt-get install "
            "postgresql-client)."
        )
    return found


def _pg_environment(config: dict) -> dict[str, str]:
    environment = dict(os.environ)
    for key, variable in (
        ("HOST", "PGHOST"),
        ("PORT", "PGPORT"),
        ("USER", "PGUSER"),
        ("PASSWORD", "PGPASSWORD"),
        ("NAME", "PGDATABASE"),
    ):
        if config.get(key):
            environment[variable] = str(config[key])
    for option, variable in PG_OPTION_VARIABLES.items():
        if (config.get("OPTIONS") or {}).get(option):
            environment[variable] = str(config["OPTIONS"][option])
    return environment


def _pg_connect(config: dict):
    import psycopg

    params = {
        "dbname": config["NAME"],
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
        "connect_timeout": 10,
    }
    for option in PG_OPTION_VARIABLES:
        if option not in params and (config.get("OPTIONS") or {}).get(option):
            params[option] = config["OPTIONS"][option]
    try:
        return psycopg.connect(**{k: v for k, v in params.items() if v is not None})
    except psycopg.Error as exc:
        raise BackupError(
            f"Cannot connect to the PostgreSQL database {config['NAME']!r}: "
            f"{str(exc).strip().rstrip('.')}."
        ) from exc


def _pg_user_tables(config: dict) -> int:
    try:
        conn = _pg_connect(config)
    except BackupError as exc:
        if "does not exist" not in str(exc):
            raise
        raise BackupError(
            f"{exc} Create the empty database first (createdb {config['NAME']}, or "
            f'CREATE DATABASE "{config["NAME"]}" in psql), then restore into it.'
        ) from None
    with conn:
        return conn.execute(
            "SELECT count(*) FROM pg_catalog.pg_tables "
            "WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        ).fetchone()[0]


def _run(command: list[str], config: dict, what: str) -> None:
    try:
        result = subprocess.run(
            command, env=_pg_environment(config), capture_output=True, text=True, check=False
        )
    except OSError as exc:
        raise BackupError(f"{what} could not start: {exc}.") from exc
    if result.returncode != 0:
        raise BackupError(f"{what} failed: {result.stderr.strip() or result.returncode}")


def _pg_backup(config: dict, destination: Path) -> None:
    pg_dump = _pg_tool("pg_dump")
    _pg_connect(config).close()  # a clear message when the database is unreachable
    with _temporary_next_to(destination) as temporary:
        _run(
            [pg_dump, "--format=custom", f"--file={temporary}", "--no-password"],
            config,
            "pg_dump",
        )
        _finish(temporary, destination, private=True)


def _check_pg_backup(path: Path, config: dict) -> None:
    pg_restore = _pg_tool("pg_restore")
    result = subprocess.run(
        [pg_restore, "--list", str(path)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise BackupError(f"{path} is not a readable pg_dump archive: {result.stderr.strip()}")
    if f"TABLE public {MIGRATIONS_TABLE} " not in result.stdout:
        raise BackupError(
            f"{path} is a pg_dump archive but not a backup of this site "
            f"(it has no {MIGRATIONS_TABLE} table)."
        )


def _pg_restore(source_path: Path, config: dict, *, force: bool) -> None:
    _check_pg_backup(source_path, config)
    pg_restore = _pg_tool("pg_restore")
    tables = _pg_user_tables(config)
    if tables and not force:
        raise BackupError(
            f"The database {config['NAME']!r} is not empty ({tables} tables). Restore into "
            "a new, empty database (createdb NAME), or replace its contents with --force."
        )
    command = [
        pg_restore,
        "--exit-on-error",
        # All or nothing: a failure leaves the target as it was.
        "--single-transaction",
        # The objects belong to whoever restores (the target's user), not to the user the
        # dump was taken as.
        "--no-owner",
        "--no-privileges",
        "--no-password",
        f"--dbname={config['NAME']}",
    ]
    if tables:
        command += ["--clean", "--if-exists"]
    _run([*command, str(source_path)], config, "pg_restore")


# --- the entry points ---------------------------------------------------------------------


def backup(path: str | os.PathLike, *, database_url: str | None = None) -> Path:
    """Write a backup of the site's database (or ``database_url``'s) to ``path``: a SQLite
    file for SQLite, a pg_dump custom-format archive for PostgreSQL. The file appears
    only when complete; an existing one is replaced."""
    config = database_settings(database_url)
    destination = Path(path).absolute()
    if destination.is_dir():
        raise BackupError(f"{destination} is a directory; give the backup file's name.")
    if config["ENGINE"] == SQLITE:
        _sqlite_backup(config, destination)
    else:
        _pg_backup(config, destination)
    return destination


def restore(
    path: str | os.PathLike, *, database_url: str | None = None, force: bool = False
) -> None:
    """Restore the backup at ``path`` into the site's database (or ``database_url``'s),
    which must be empty (a new SQLite file, or a new PostgreSQL database) unless
    ``force``, which replaces what is there."""
    source = Path(path).absolute()
    kind = backup_kind(source)
    config = database_settings(database_url)
    target_kind = "sqlite" if config["ENGINE"] == SQLITE else "postgresql"
    if kind != target_kind:
        names = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
        raise BackupError(
            f"{source} is a {names[kind]} backup; the target database is "
            f"{names[target_kind]}. Restore it into a {names[kind]} database "
            "(to move between the two, see docs/backup.md)."
        )
    if database_url is None:
        # The site's own connection must not hold the file or a transaction open.
        connections["default"].close()
    if kind == "sqlite":
        _sqlite_restore(source, config, force=force)
    else:
        _pg_restore(source, config, force=force)


@contextlib.contextmanager
def opened_backup(path: str | os.PathLike) -> Iterator[str]:
    """A Django connection to the backup at ``path``, for the block: a SQLite backup is opened
    read-only where it is; a PostgreSQL one is restored into a scratch database on the
    site's server (the site's user needs CREATEDB), dropped afterwards."""
    source = Path(path).absolute()
    kind = backup_kind(source)
    if kind == "sqlite":
        _check_sqlite_backup(source)
        with _attach({"ENGINE": SQLITE, "NAME": f"{source.as_uri()}?mode=ro"}) as wrapper:
            yield wrapper
        return
    config = database_settings()
    if config["ENGINE"] != POSTGRESQL:
        raise BackupError(
            f"{source} is a PostgreSQL backup; open it on a site that uses PostgreSQL."
        )
    _check_pg_backup(source, config)
    scratch = dict(config, NAME=f"{config['NAME']}_verify_{secrets.token_hex(4)}")
    with _pg_connect(config) as conn:
        conn.autocommit = True
        try:
            conn.execute(f'CREATE DATABASE "{scratch["NAME"]}"')
        except Exception as exc:
            raise BackupError(
                f"Cannot create the scratch database {scratch['NAME']!r} to read the "
                f"backup in: {str(exc).strip()}"
            ) from exc
    try:
        _pg_restore(source, scratch, force=False)
        with _attach(scratch) as wrapper:
            yield wrapper
    finally:
        with _pg_connect(config) as conn:
            conn.autocommit = True
            conn.execute(f'DROP DATABASE IF EXISTS "{scratch["NAME"]}" WITH (FORCE)')


def fingerprints_of_backup(path: str | os.PathLike) -> dict[str, Fingerprint]:
    """:func:`table_fingerprints` of what the backup at ``path`` holds."""
    with opened_backup(path) as wrapper:
        return table_fingerprints(wrapper)


def fingerprints_of_database(database_url: str | None = None) -> dict[str, Fingerprint]:
    """:func:`table_fingerprints` of the site's database, or of the one ``database_url``
    names."""
    if database_url is None:
        return table_fingerprints(connections["default"])
    with attached(database_url) as wrapper:
        try:
            return table_fingerprints(wrapper)
        except Exception as exc:
            if isinstance(exc, BackupError):
                raise
            raise BackupError(f"Cannot read the database {database_url}: {exc}") from exc
