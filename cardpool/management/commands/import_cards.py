from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cardpool.importing import ImportRejected
from cardpool.management.games import game_or_error
from cardpool.services import import_cards


class Command(BaseCommand):
    help = (
        "Import cards from a CSV (header: name,set,card_type,number,rarity,cost,gender,ap,dp,"
        "text,unlimited,element,notes,deck_size_min,deck_size_max,release_date) or JSON Lines"
        " file. All rows or none are written."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--game", default="crossover", help="game identifier (slug)")

    def handle(self, *args, file: Path, game: str, **options):
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise CommandError(f"{file}: cannot read the file: {exc.strerror}") from exc
        target = game_or_error(game)
        try:
            summary = import_cards(data, game=target, filename=file.name)
        except ImportRejected as rejected:
            for error in rejected.errors:
                self.stderr.write(f"{file.name}: {error}")
            raise CommandError(
                f"{file.name}: {len(rejected.errors)} problem(s); nothing was imported."
            ) from None
        for note in sorted(summary.notes):
            self.stdout.write(f"{file.name}: note: {note}")
        self.stdout.write(
            f"{file.name}: {summary.rows} rows; cards: {summary.cards_created} new, "
            f"{summary.cards_updated} updated, {summary.cards_unchanged} unchanged; printings: "
            f"{summary.printings_created} new, {summary.printings_updated} updated, "
            f"{summary.printings_unchanged} unchanged."
        )
