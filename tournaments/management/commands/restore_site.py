"""``manage.py restore_site FILE [--database-url URL] [--force] [--verify]``: restore a
backup made by ``backup_site`` (docs/backup.md)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from config import backup

from .backup_site import report_comparison


class Command(BaseCommand):
    help = (
        "Restore a backup made by backup_site into the site's database, or into the empty "
        "database --database-url names. A database that is not empty is refused unless "
        "--force (which replaces its contents)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the backup file (from backup_site)")
        parser.add_argument(
            "--database-url",
            help="restore into this database instead of the site's: a new SQLite file "
            "(sqlite:////absolute/path.sqlite3) or an empty PostgreSQL database "
            "(postgres://user@host:5432/name, made with createdb)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace the contents of a database that is not empty",
        )
        parser.add_argument(
            "--verify",
            action="store_true",
            help="then compare every table of the restored database with the backup",
        )

    def handle(self, *args, file, database_url, force, verify, **options):
        try:
            backup.restore(file, database_url=database_url, force=force)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Restored {file} into {database_url or 'the site database'}.")
        if verify:
            report_comparison(self, file, database_url, against="restored database")
