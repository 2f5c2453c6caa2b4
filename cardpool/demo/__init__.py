"""The demo card pool shipped with the site (see scripts/convert_shared_data.py)."""

import json
from pathlib import Path

from cardpool import services

DEMO_DIR = Path(__file__).resolve().parent


def load_demo_pool() -> services.ImportSummary:
    """Create the demo games, sets and cards; running it again changes nothing."""
    meta = json.loads((DEMO_DIR / "sets.json").read_text(encoding="utf-8"))
    games = {g["slug"]: services.upsert_game(**g) for g in meta["games"]}
    for entry in meta["sets"]:
        values = dict(entry)
        game = games[values.pop("game")]
        services.upsert_set(game=game, **values)
    # The research data does not know the type or set of every card; such cards are kept
    # with those fields empty rather than guessed, so only the name is required here.
    return services.import_cards(
        (DEMO_DIR / "cards.jsonl").read_bytes(),
        game=games["crossover"],
        filename="cards.jsonl",
        required=("name",),
    )
