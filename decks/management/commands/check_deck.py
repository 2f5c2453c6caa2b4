import datetime as dt
import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from config.nul import first_nul
from decks.models import Format
from decks.services import check_text

EXIT_LEGAL, EXIT_ILLEGAL, EXIT_UNREADABLE = 0, 1, 2


class Command(BaseCommand):
    help = (
        "Check a decklist file against a format. Exit status: 0 legal, 1 not legal, "
        "2 the input could not be read."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="decklist file (UTF-8), or - for standard input")
        parser.add_argument("--format", required=True, dest="format_slug")
        parser.add_argument("--as-of", help="YYYY-MM-DD; default today")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print the report as JSON"
        )
        parser.add_argument("--language", choices=["en", "ja"], default="en")

    def handle(self, *args, file, format_slug, as_of, as_json: bool, language, **options):
        text = self._read(file)
        try:
            fmt = Format.objects.select_related("game").get(slug=format_slug)
        except Format.DoesNotExist:
            known = ", ".join(Format.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(
                f"unknown format {format_slug!r}; known formats: {known}",
                returncode=EXIT_UNREADABLE,
            ) from None
        try:
            day = dt.date.fromisoformat(as_of) if as_of else None
        except ValueError:
            raise CommandError(
                f"--as-of {as_of!r} is not a date (YYYY-MM-DD)", returncode=EXIT_UNREADABLE
            ) from None
        report = check_text(text, fmt, day or timezone.localdate())
        if as_json:
            self.stdout.write(
                json.dumps(report.as_dict(language=language), ensure_ascii=False, indent=2)
            )
        else:
            self._print(report, language)
        if not report.legal:
            sys.exit(EXIT_ILLEGAL)

    def _read(self, file: str) -> str:
        try:
            data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
        except OSError as exc:
            raise CommandError(
                f"{file}: cannot read: {exc.strerror}", returncode=EXIT_UNREADABLE
            ) from exc
        try:
            # Plain UTF-8: a byte-order mark is the parser's to remove, as for a list from
            # the page or the API (one reader for every entry point, issue #24).
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise CommandError(
                f"{file}: line {line} is not UTF-8 text", returncode=EXIT_UNREADABLE
            ) from None
        nul = first_nul(text)
        if nul is not None:
            # As the pages and the API, which refuse NUL in a decklist (config/nul.py).
            raise CommandError(
                f"{file}: line {nul[0]} contains a NUL character (U+0000)",
                returncode=EXIT_UNREADABLE,
            )
        return text

    def _print(self, report, language: str) -> None:
        count = len(report.violations)
        verdict = "LEGAL" if report.legal else f"NOT LEGAL ({count} problem{'s' * (count != 1)})"
        self.stdout.write(
            f"{verdict} — {report.format} v{report.format_version} as of {report.as_of}"
        )
        self.stdout.write(f"deck {report.main_count}, sideboard {report.sideboard_count}")
        for violation in report.violations:
            message = violation.message_ja if language == "ja" else violation.message_en
            rule = f" [{violation.rule}]" if violation.rule else ""
            self.stdout.write(f"  {violation.code}{rule}: {message}")
        for notice in report.notices:
            message = notice.message_ja if language == "ja" else notice.message_en
            self.stdout.write(f"  note: {message}")
