"""Re-check every stored deck of a format after a ban-list change, on a fresh database.

    .venv/bin/python bench/decks_recheck.py [--decks 10000] [--cards 2000]

Uses a new SQLite file in a temporary folder unless DATABASE_URL is set (then that database
must be empty or disposable: the script migrates it and adds its data). Target (issue 3):
10,000 stored decks re-checked in at most 15 s on SQLite.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decks", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=2_000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="recheck-bench-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{folder}/bench.sqlite3")
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from cardpool.models import Card, CardSet, Game, Printing
    from decks import services
    from decks.models import BanEntry, Deck, DeckCheck, DeckEntry, Format, RecheckJob

    call_command("migrate", verbosity=0)
    rng = random.Random(7)
    game = Game.objects.create(slug="crossover", name="CrossOver")
    sets = [
        CardSet.objects.create(game=game, code=code, name=code, release_order=i)
        for i, code in enumerate(["beta", "base", "first"], 1)
    ]
    cards = Card.objects.bulk_create(
        Card(
            game=game,
            name=f"card{i}",
            name_key=f"card{i}",
            search_key=f"card{i}",
            card_type="CHARACTER",
            element="火",
        )
        for i in range(args.cards)
    )
    Printing.objects.bulk_create(Printing(card=card, set=rng.choice(sets)) for card in cards)
    fmt = Format.objects.create(
        game=game,
        slug="crossover",
        name="CrossOver",
        min_deck_size=50,
        copy_limit=4,
        sideboard_max=20,
    )
    fmt.legal_sets.set(sets)
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"player{i}") for i in range(100)
    )
    decks = Deck.objects.bulk_create(
        Deck(owner=rng.choice(users), format=fmt, name=f"deck {i}") for i in range(args.decks)
    )
    entries = []
    for deck in decks:
        for position, card in enumerate(rng.sample(cards, 15)):
            entries.append(
                DeckEntry(
                    deck=deck,
                    card=card,
                    count=4 if position < 14 else 1,
                    section="main",
                    position=position,
                )
            )
    DeckEntry.objects.bulk_create(entries, batch_size=5000)
    banned = cards[:20]
    for card in banned:
        BanEntry.objects.create(format=fmt, card=card)

    job = RecheckJob.objects.create(format=fmt, format_version=fmt.version)
    start = time.perf_counter()
    job = services.run_recheck(job.pk)
    seconds = time.perf_counter() - start
    assert DeckCheck.objects.count() == args.decks
    print(
        f"{connection.vendor}: re-checked {args.decks} decks ({len(entries)} entries, pool of "
        f"{args.cards}) in {seconds:.2f} s; {len(job.became_illegal)} became illegal; "
        f"target <= 15 s: {'met' if seconds <= 15 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
