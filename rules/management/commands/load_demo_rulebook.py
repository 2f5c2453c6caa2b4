"""The CrossOver rulebook for a laptop's demo site (``./dev serve``), when the shared seeds
are next to the checkout: the project does not ship the rulebook's text, and without it
the rules search has only the demo procedures to look in."""

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

SEED_RULEBOOK = Path(settings.BASE_DIR).parent / "shared" / "seeds" / "000_e0cee07c6498af1f.txt"


class Command(BaseCommand):
    help = (
        "Import the CrossOver Basic Rules from ../shared/seeds/ (or FILE) as the crossover "
        "rulebook when the file is there; say so and do nothing when it is not. "
        "./dev serve runs it after load_demo."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, default=SEED_RULEBOOK)

    def handle(self, *args, file: Path, **options):
        if not file.is_file():
            self.stdout.write(
                f"Rulebook: {file} not found; skipped. The rules search has the demo "
                "procedures only; import a rulebook with "
                "./dev manage import_rules --game crossover FILE"
            )
            return
        call_command("import_rules", str(file), game="crossover", stdout=self.stdout)
