"""Re-check every stored deck of a format after a ban-list change, on a fresh database.

    .venv/bin/python bench/decks_recheck.py [--decks 10000] [--cards 2000] [--kill-at N]

Uses a new SQLite file in a temporary folder unless DATABASE_URL is set (then that database
must be empty or disposable: the script migrates it and adds its data). Target (issue 3):
10,000 stored decks re-checked in at most 15 s on SQLite.

``--kill-at N`` (PostgreSQL, issue 21): the re-check runs in a thread, as in a worker, and
once N decks are checked the server kills its connection (``pg_terminate_backend``); the
script reports how the job ended, the decks checked, the time, the job's attempts and the
tries within them (one more than the retries logged by config.jobs).
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decks", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=2_000)
    parser.add_argument("--kill-at", type=int, default=None, metavar="N")
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
    if args.kill_at is not None:
        run_with_a_kill(args, job.pk, fmt.version)
        return
    start = time.perf_counter()
    job = services.run_recheck(job.pk)
    seconds = time.perf_counter() - start
    assert DeckCheck.objects.count() == args.decks
    print(
        f"{connection.vendor}: re-checked {args.decks} decks ({len(entries)} entries, pool of "
        f"{args.cards}) in {seconds:.2f} s; {len(job.became_illegal)} became illegal; "
        f"target <= 15 s: {'met' if seconds <= 15 else 'NOT met'}"
    )


class RetryCount(logging.Handler):
    """Counts the retries config.jobs logs (one per failed try that is tried again)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.retries = 0

    def emit(self, record):
        self.retries += "database error" in record.getMessage()


def run_with_a_kill(args, job_id: int, version: int) -> None:
    """The re-check in a thread; its connection killed once ``args.kill_at`` decks are
    checked; how the job ends."""
    from django.db import connection

    from decks import services
    from decks.models import DeckCheck, RecheckJob

    if connection.vendor != "postgresql":
        sys.exit("--kill-at needs PostgreSQL (DATABASE_URL=postgres://...)")
    counter = RetryCount()
    logging.getLogger("config.jobs").addHandler(counter)
    outcome: dict = {}

    def worker() -> None:
        try:
            services.run_recheck(job_id)
        except Exception as exc:  # what a worker would log; reported below
            outcome["error"] = repr(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    start = time.perf_counter()
    thread.start()
    while RecheckJob.objects.get(pk=job_id).done < args.kill_at and thread.is_alive():
        time.sleep(0.005)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        killed = sum(1 for (ok,) in cursor.fetchall() if ok)
    done_at_kill = RecheckJob.objects.get(pk=job_id).done
    killed_after = time.perf_counter() - start
    thread.join()
    seconds = time.perf_counter() - start
    job = RecheckJob.objects.get(pk=job_id)
    checked = DeckCheck.objects.filter(format_version=version).count()
    print(
        f"{connection.vendor}: {args.decks} decks; {killed} connection(s) killed at "
        f"{done_at_kill} decks checked ({killed_after:.2f} s); job {job.status}, "
        f"{checked} of {args.decks} decks checked, {job.done}/{job.total} reported, in "
        f"{seconds:.2f} s; attempts {getattr(job, 'attempts', 'n/a')}, tries within them "
        f"{counter.retries + 1}; error {outcome.get('error') or job.error or '-'}"
    )


if __name__ == "__main__":
    main()
