"""The built-in formats (decks/builtin_formats.json), created or brought up to date."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from django.db import transaction

from cardpool.models import Card, CardSet, Game
from cardpool.names import name_key

from .models import BanEntry, Format, LegalSet

BUILTIN_FILE = Path(__file__).resolve().parent / "builtin_formats.json"
FORMAT_FIELDS = (
    "name",
    "min_deck_size",
    "max_deck_size",
    "copy_limit",
    "exempt_unlimited",
    "exempt_card_type",
    "sideboard_min",
    "sideboard_max",
    "leader_type",
    "leader_count",
    "rule_sections",
)


@transaction.atomic
def load_builtin_formats() -> list[Format]:
    """Create the built-in formats that are missing. A format that exists already is left
    as the organizers edited it."""
    data = json.loads(BUILTIN_FILE.read_text(encoding="utf-8"))
    created = []
    for spec in data["formats"]:
        game = Game.objects.get(slug=spec["game"])
        if Format.objects.filter(slug=spec["slug"]).exists():
            continue
        values = {name: spec[name] for name in FORMAT_FIELDS if name in spec}
        values["leader_type"] = values.get("leader_type") or ""
        values["exempt_card_type"] = values.get("exempt_card_type") or ""
        fmt = Format.objects.create(game=game, slug=spec["slug"], **values)
        # A set is legal from the date the format gives it (else from its release date).
        legal_from = spec.get("legal_from", {})
        LegalSet.objects.bulk_create(
            LegalSet(
                format=fmt,
                card_set=card_set,
                legal_from=dt.date.fromisoformat(legal_from[card_set.code])
                if card_set.code in legal_from
                else None,
            )
            for card_set in CardSet.objects.filter(game=game, code__in=spec["legal_sets"])
        )
        for ban in spec["bans"]:
            card = _card(game, ban["card"])
            BanEntry.objects.create(
                format=fmt,
                card=card,
                printing_set=CardSet.objects.get(game=game, code=ban["set"])
                if ban.get("set")
                else None,
                effective_from=dt.date.fromisoformat(ban["effective_from"])
                if ban.get("effective_from")
                else None,
                note=ban.get("note", ""),
                source=ban.get("source", ""),
            )
        created.append(fmt)
    return created


def _card(game: Game, name: str) -> Card:
    card = Card.objects.filter(game=game, name_key=name_key(name)).first()
    return card or Card.objects.create(game=game, name=name)
