"""The demo card pool shipped with the site (see scripts/convert_shared_data.py)."""

from pathlib import Path

from cardpool import services
from cardpool.builtin import load_builtin_games

DEMO_DIR = Path(__file__).resolve().parent


def load_demo_pool() -> services.ImportSummary:
    """Create the built-in games and sets (:func:`cardpool.builtin.load_builtin_games`)
    and the demo cards; running it again changes nothing."""
    games = load_builtin_games().games
    # The research data does not know the type or set of every card; such cards are kept
    # with those fields empty rather than guessed, so only the name is required here.
    return services.import_cards(
        (DEMO_DIR / "cards.jsonl").read_bytes(),
        game=games["crossover"],
        filename="cards.jsonl",
        required=("name",),
    )
