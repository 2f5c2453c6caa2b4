"""The built-in games and their card sets (``builtin_games.json``): facts about the
published games, shipped with the site, among them how each game's games end (its HP
limit, losing conditions and time-out tiebreak, with the source of each rule). No cards:
those come from an import (or the demo pool, :mod:`cardpool.demo`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from .models import CardSet, Game

BUILTIN_FILE = Path(__file__).resolve().parent / "builtin_games.json"


@dataclass
class BuiltinGames:
    games: dict[str, Game]  # every built-in game by slug, created or found
    games_created: list[Game] = field(default_factory=list)
    sets_created: list[CardSet] = field(default_factory=list)


def end_rules_fields(spec: dict) -> dict:
    """The ``Game`` fields of a built-in game's ``end_rules`` (how its games end)."""
    rules = dict(spec.get("end_rules", {}))
    if "sources" in rules:
        rules["end_rules_sources"] = rules.pop("sources")
    return rules


@transaction.atomic
def load_builtin_games() -> BuiltinGames:
    """Create the built-in games and sets that are missing. One that exists already is
    left as the organizers edited it (its name, aliases, release order…); one they
    deleted comes back."""
    data = json.loads(BUILTIN_FILE.read_text(encoding="utf-8"))
    result = BuiltinGames(games={})
    for spec in data["games"]:
        game, created = Game.objects.get_or_create(
            slug=spec["slug"], defaults={"name": spec["name"], **end_rules_fields(spec)}
        )
        result.games[game.slug] = game
        if created:
            result.games_created.append(game)
    for spec in data["sets"]:
        values = dict(spec)
        game = result.games[values.pop("game")]
        card_set, created = CardSet.objects.get_or_create(
            game=game, code=values.pop("code"), defaults=values
        )
        if created:
            result.sets_created.append(card_set)
    return result
