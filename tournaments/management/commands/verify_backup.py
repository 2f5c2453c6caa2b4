"""``manage.py verify_backup FILE [--database-url URL]``: compare a backup with a database
table by table (row counts and checksums; docs/backup.md)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from .backup_site import report_comparison


class Command(BaseCommand):
    help = (
        "Compare every table of a backup made by backup_site with the site's database (or "
        "--database-url's): row counts and a SHA-256 of the rows. Fails naming the tables "
        "that differ. A PostgreSQL backup is read by restoring it into a scratch database "
        "(the site's user needs CREATEDB), dropped afterwards."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the backup file (from backup_site)")
        parser.add_argument(
            "--database-url",
            help="compare with this database instead of the site's (e.g. a restored copy)",
        )

    def handle(self, *args, file, database_url, **options):
        report_comparison(self, file, database_url, against="database")
