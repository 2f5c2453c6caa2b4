from django.core.management.base import BaseCommand
from django.db import transaction

from cardpool.builtin import load_builtin_games
from decks.builtin import load_builtin_formats
from tournaments.infractions import load_builtin_infractions


class Command(BaseCommand):
    help = (
        "Create what a site needs before its first event: the built-in games and their card "
        "sets, the built-in formats (with their ban lists) and the built-in infractions. No "
        "demo cards, users or events. Only what is missing is created; what exists is left "
        "as the organizers edited it, so it is safe to run at every deploy."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            games = load_builtin_games()
            formats = load_builtin_formats()
            infractions = load_builtin_infractions()
        self.stdout.write(
            f"Games: {len(games.games_created)} added, "
            f"{len(games.games) - len(games.games_created)} already there "
            f"({', '.join(sorted(games.games))})."
        )
        self.stdout.write(f"Card sets: {len(games.sets_created)} added.")
        self.stdout.write(
            f"Formats: {len(formats)} added"
            + (f" ({', '.join(fmt.slug for fmt in formats)})." if formats else ".")
        )
        self.stdout.write(f"Infractions: {len(infractions)} added.")
        self.stdout.write(self.style.SUCCESS("The site is set up."))
