"""Reads of decks, always through the owner: another player's deck does not exist for you."""

from django.db.models import Prefetch, QuerySet

from .models import Deck, DeckCheck


def decks_of(user) -> QuerySet[Deck]:
    if not user.is_authenticated:
        return Deck.objects.none()
    latest = Prefetch(
        "checks", queryset=DeckCheck.objects.order_by("-checked_at", "-id"), to_attr="check_history"
    )
    return Deck.objects.filter(owner=user).select_related("format__game").prefetch_related(latest)
