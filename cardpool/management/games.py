"""What the management commands share about games."""

from django.core.management.base import CommandError

from cardpool.models import Game


def game_or_error(slug: str) -> Game:
    """The game with this identifier, or a CommandError listing the known ones."""
    try:
        return Game.objects.get(slug=slug)
    except Game.DoesNotExist:
        known = ", ".join(Game.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"unknown game {slug!r}; known games: {known}") from None
