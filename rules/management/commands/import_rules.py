import datetime as dt
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cardpool.management.games import game_or_error
from rules.messages import describe_flag
from rules.parsing import STYLES, ParseError
from rules.services import file_checksum, import_rules_document


class Command(BaseCommand):
    help = (
        "Import a rules document as a new version of a game's rulebook. The previous "
        "version is kept; what changed is reported. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--game", required=True, help="game identifier (slug)")
        parser.add_argument(
            "--style",
            choices=STYLES,
            help="document style; detected from the text when left out",
        )
        parser.add_argument(
            "--series",
            default="rules",
            help="document series: versions of one document share it (default: rules, the "
            "official rulebook; e.g. wiki for a players' summary)",
        )
        parser.add_argument("--title", default="", help="title (default: from the document)")
        parser.add_argument(
            "--doc-version",
            dest="doc_version",
            default="",
            help="version label (default: from the document)",
        )
        parser.add_argument("--date", default="", help="date of the document, YYYY-MM-DD")
        parser.add_argument("--encoding", default="utf-8", help="text encoding (utf-8)")

    def handle(
        self,
        *args,
        file: Path,
        game: str,
        series: str,
        style,
        title,
        doc_version,
        date,
        encoding,
        **options,
    ):
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise CommandError(f"{file}: cannot read the file: {exc.strerror}") from exc
        try:
            text = data.decode(encoding)
        except LookupError:
            raise CommandError(f"unknown encoding {encoding!r}") from None
        except UnicodeDecodeError as exc:
            raise CommandError(
                f"{file.name}: not {encoding} text (byte {exc.start}); "
                "pass --encoding, e.g. --encoding cp932"
            ) from None
        document_date = None
        if date:
            try:
                document_date = dt.date.fromisoformat(date)
            except ValueError:
                raise CommandError(f"--date {date!r} is not a date (YYYY-MM-DD)") from None
        target = game_or_error(game)
        try:
            report = import_rules_document(
                game=target,
                text=text,
                checksum=file_checksum(data),
                series=series,
                source_name=file.name,
                style=style,
                title=title,
                version=doc_version,
                date=document_date,
            )
        except ParseError as exc:
            raise CommandError(f"{file.name}: {exc}; nothing was imported.") from None

        document = report.document
        if report.unchanged:
            self.stdout.write(
                f"{file.name}: already imported as version {document.version} of "
                f"{target.slug} {series} (current); nothing to do."
            )
            return
        self.stdout.write(
            f"{file.name}: imported “{document.title}” version {document.version} "
            f"({document.style}) as the current {target.slug} {series}: "
            f"{report.sections} sections, {len(report.flagged)} to review."
        )
        for section in report.flagged:
            label = f"{section.number} {section.title}".strip()
            for flag in section.review_flags:
                self.stdout.write(f"  review {label}: {describe_flag(flag)}")
        if report.previous is None:
            self.stdout.write("  first version of this document.")
            return
        changes = report.changes
        self.stdout.write(
            f"  compared with version {report.previous.version} (kept): "
            f"{len(changes.added)} added, {len(changes.removed)} removed, "
            f"{len(changes.changed)} changed."
        )
        for label, entries in (
            ("added", changes.added),
            ("removed", changes.removed),
            ("changed", changes.changed),
        ):
            for change in entries:
                what = f" ({', '.join(change.fields)})" if change.fields else ""
                self.stdout.write(f"  {label}: {change.number} {change.title}{what}".rstrip())
