"""``manage.py backup_site FILE [--verify]``: back up the whole site (docs/backup.md).

SQLite: an online copy with SQLite's backup API (the site may keep running); PostgreSQL:
``pg_dump --format=custom``. The file appears only once complete.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from config import backup


def report_comparison(command: BaseCommand, path, database_url, *, against: str) -> None:
    """Print the per-table comparison of the backup at ``path`` with a database; a
    CommandError names the tables that differ."""
    try:
        expected = backup.fingerprints_of_backup(path)
        actual = backup.fingerprints_of_database(database_url)
    except backup.BackupError as exc:
        raise CommandError(str(exc)) from None
    for line in backup.comparison_lines(expected, actual, actual_name=against):
        command.stdout.write(line)
    differing = backup.compare_fingerprints(expected, actual)
    if differing:
        raise CommandError(
            f"{len(differing)} of {len(expected.keys() | actual.keys())} tables differ "
            f"between the backup and the {against}: {', '.join(differing)}"
        )
    rows = sum(fingerprint.rows for fingerprint in expected.values())
    command.stdout.write(
        command.style.SUCCESS(
            f"The backup and the {against} match: {len(expected)} tables, {rows:,} rows."
        )
    )


class Command(BaseCommand):
    help = (
        "Back up the site's whole database (events, accounts, rules, card pool, stored "
        "exports and uploads) to FILE: a SQLite copy or a pg_dump custom-format archive."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the backup file to write (replaced if it exists)")
        parser.add_argument(
            "--database-url",
            help="back up this database instead of the site's (postgres://… or sqlite:////…)",
        )
        parser.add_argument(
            "--verify",
            action="store_true",
            help="then compare every table of the backup with the database (on a quiet site: "
            "requests served meanwhile show up as differences)",
        )

    def handle(self, *args, file, database_url, verify, **options):
        try:
            written = backup.backup(file, database_url=database_url)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Backed up to {written} ({written.stat().st_size:,} bytes).")
        if verify:
            report_comparison(self, written, database_url, against="database")
