"""Time the event file of a 512-player, 9-round event: export, JSON, import, export again.

    .venv/bin/python bench/event_file.py [--players 512] [--rounds 9] [--out FILE] [--keep]

Builds the event through the service functions (``build_played_event``: registrations
inserted as ``register_player`` writes them, as in bench/event_4096.py; then for every
round ``generate_round``, ``publish_round``, ``start_round_clock``, a report and a
confirmation per match, a few drops, and ``close_round``). Then prints, in seconds:
``export_event``, ``json.dumps`` and the file's size, ``validate``, ``import_event`` into
the same database after the event and its players were deleted (the placeholders are
created again), and the second export; it checks that the two documents are equal
(docs/event-file.md, "Round trip").

Database: a new SQLite file, or with ``DATABASE_URL=postgres://…`` a scratch database on
that server (never the named one), dropped at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

LEGAL_DECK = "4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n"
RECORDS = ["2-0", "2-1", "0-2", "1-2", "2-0", "0-2", "2-1", "1-2", "1-1-1", "1-0-1"]


def build_played_event(
    fmt, organizer, players, *, rounds: int, seed: str = "event-file", bulk_results=False
):
    """A finished Swiss event: ``players`` (accounts) registered with LEGAL_DECK, ``rounds``
    rounds played, reported, confirmed and closed; about 1 % drop after each round.
    Returns the event. Used by this benchmark and by the 512-player round-trip test.

    ``bulk_results``: write each round's reports and confirmations as the two services
    would (match fields, both submissions, both audit entries) with a few bulk queries
    instead of two service calls per match: the test's event in seconds, not a minute."""
    import datetime as dt

    from django.db import transaction
    from django.utils import timezone

    from tournaments import services
    from tournaments.demo import games_for
    from tournaments.models import AuditEntry, Match, Registration, RegistrationStatus

    rng = random.Random(seed)
    event = services.create_event(
        organizer=organizer,
        format=fmt,
        name=f"Event file benchmark ({len(players)} players)",
        date=dt.date(2026, 5, 16),
        capacity=len(players),
        pairing_seed=seed,
    )
    services.update_event(event, actor=organizer, swiss_rounds=rounds)
    event = services.open_registration(event, actor=organizer)
    # What register_player writes for each player, the list checked once (the same list).
    checked = services.check_decklist(event, player=players[0], deck_text=LEGAL_DECK)
    with transaction.atomic():
        start = timezone.now()
        registrations = Registration.objects.bulk_create(
            Registration(
                event=event,
                player=user,
                status=RegistrationStatus.REGISTERED,
                registered_at=start + dt.timedelta(microseconds=index),
                deck_text=checked.text,
                deck_report=checked.report,
                deck_submitted_at=start + dt.timedelta(microseconds=index),
            )
            for index, user in enumerate(players)
        )
        AuditEntry.objects.bulk_create(
            AuditEntry(
                event=event,
                actor=registration.player,
                action="registration.created",
                object_type="registration",
                object_id=registration.pk,
                after={"player": registration.player_id, "status": "registered"},
            )
            for registration in registrations
        )
    event = services.start_event(event, actor=organizer)
    for _ in range(rounds):
        round_ = services.generate_round(event, actor=organizer)
        services.publish_round(round_, actor=organizer)
        services.start_round_clock(round_, actor=organizer)
        matches = Match.objects.filter(round=round_, player2__isnull=False).select_related(
            "player1__player", "player2__player"
        )
        matches = list(matches.order_by("table"))
        records = [rng.choice(RECORDS) for _ in matches]
        if bulk_results:
            _write_results(event, matches, records)
        else:
            for match, record in zip(matches, records, strict=True):
                match = services.report_result(
                    match,
                    actor=match.player1.player,
                    games=games_for(record),
                    expected_version=match.version,
                )
                services.confirm_result(
                    match, actor=match.player2.player, expected_version=match.version
                )
        services.close_round(round_, actor=organizer)
        active = list(
            Registration.objects.filter(event=event, status=RegistrationStatus.REGISTERED)
        )
        for registration in rng.sample(active, k=len(active) // 100):
            services.drop_player(registration, actor=organizer, reason="went home")
    event.refresh_from_db()
    return event


def _write_results(event, matches, records) -> None:
    """What report_result then confirm_result write for each match, in bulk."""
    from django.db import transaction

    from tournaments.demo import games_for
    from tournaments.models import AuditEntry, Match, ResultReport
    from tournaments.services.audit import bump_revision
    from tournaments.services.results import parse_games

    reports, entries = [], []
    for match, record in zip(matches, records, strict=True):
        games = [_game_data(game) for game in parse_games(games_for(record))]
        wins, losses, draws = (int(n) for n in (record + "-0").split("-")[:3])
        match.games = games
        match.wins, match.losses, match.draws = wins, losses, draws
        match.outcome = "player1" if wins > losses else "player2" if losses > wins else "draw"
        match.status = "confirmed"
        match.reported_by_id = match.player1_id
        match.version = 3
        text = f"{wins}-{losses}-{draws}"
        result = {"record": text, "outcome": match.outcome, "reported_by": match.player1_id}
        for version, kind, actor, action in (
            (2, "report", match.player1.player, "match.reported"),
            (3, "confirm", match.player2.player, "match.confirmed"),
        ):
            reports.append(
                ResultReport(
                    match=match,
                    reporter=actor,
                    kind=kind,
                    games=games if kind == "report" else [],
                    record=text,
                    match_version=version,
                )
            )
            entries.append(
                AuditEntry(
                    event=event,
                    actor=actor,
                    action=action,
                    object_type="match",
                    object_id=match.pk,
                    object_version=version,
                    before={"version": version - 1},
                    after={**result, "games": games, "version": version},
                )
            )
    with transaction.atomic():
        Match.objects.bulk_update(
            matches,
            ["games", "wins", "losses", "draws", "outcome", "status", "reported_by", "version"],
            batch_size=500,
        )
        ResultReport.objects.bulk_create(reports, batch_size=500)
        AuditEntry.objects.bulk_create(entries, batch_size=500)
        bump_revision(event.pk, standings=False)


def _game_data(game) -> dict:
    return {
        "end": str(game.end) if game.end is not None else None,
        "hp": list(game.hp),
        "deck": list(game.deck),
        "conceded": list(game.conceded),
        "penalized": list(game.penalized),
    }


def remove_event_and_people(event) -> None:
    """What an import into another site meets: neither the event nor its people."""
    from django.contrib.auth import get_user_model

    from tournaments.models import DeckCheck, Event, Penalty, Round

    # Matches and penalties protect the registrations they name: remove them first.
    Penalty.objects.filter(event=event).delete()
    DeckCheck.objects.filter(event=event).delete()
    Round.objects.filter(event=event).delete()
    Event.objects.filter(pk=event.pk).delete()
    get_user_model().objects.all().delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--out", help="also write the event file here")
    parser.add_argument(
        "--bulk-results",
        action="store_true",
        help="write results in bulk (as the services write them) to build the event faster",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the import")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args(argv)

    from event_4096 import configure_django, scratch_database

    scratch = scratch_database()
    try:
        configure_django(scratch)
        return run(args, scratch.vendor)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept the scratch database: {scratch.url}")
        else:
            scratch.drop()


def run(args, vendor: str) -> int:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command
    from event_4096 import build_card_pool

    from tournaments.event_file import export_event, import_event, validate

    call_command("migrate", verbosity=0)
    fmt = build_card_pool()
    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer", password="bench-organizer")
    unusable = make_password(None)
    players = user_model.objects.bulk_create(
        user_model(username=f"player{n:04d}", password=unusable) for n in range(1, args.players + 1)
    )
    started = time.perf_counter()
    event = build_played_event(
        fmt, organizer, players, rounds=args.rounds, bulk_results=args.bulk_results
    )
    built = time.perf_counter() - started
    print(
        f"{vendor}: {args.players} players, {args.rounds} rounds built through the services "
        f"({'results in bulk' if args.bulk_results else 'every result reported and confirmed'}) "
        f"in {built:.1f} s; load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}"
    )

    def timed(label, function):
        # Wall clock and this process's CPU time: on a shared machine the two differ.
        started, cpu = time.perf_counter(), time.process_time()
        value = function()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"{label:<22} {wall:8.3f} s  (CPU {cpu:.3f} s)")
        return value

    document = timed("export_event", lambda: export_event(event))
    text = timed(
        "json.dumps",
        lambda: json.dumps(document, ensure_ascii=False, separators=(",", ":")),
    )
    size = len(text.encode())
    indented = len(json.dumps(document, ensure_ascii=False, indent=1).encode())
    print(
        f"{'file size':<22} {size:>8,} bytes ({size / 1024 / 1024:.2f} MiB) as export_event "
        f"writes it; {indented / 1024 / 1024:.2f} MiB with --indent 1"
    )
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    problems = timed("validate", lambda: validate(json.loads(text)))
    if problems:
        print(f"{len(problems)} problems, first: {problems[0]}")
        return 1
    remove_event_and_people(event)
    parsed = json.loads(text)
    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        outcome = timed("import_event", lambda: profile.runcall(import_event, parsed))
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
    else:
        outcome = timed("import_event", lambda: import_event(parsed))
    again = timed("export_event (again)", lambda: export_event(outcome.event))
    counts = ", ".join(f"{name} {n}" for name, n in outcome.counts.items())
    print(f"imported: {counts}")
    same = _comparable(again) == _comparable(document)
    print(f"round trip: {'same document' if same else 'DIFFERENT'}")
    return 0 if same else 1


def _comparable(document: dict) -> dict:
    document = dict(document)
    document.pop("exported_at")
    document["audit"] = [e for e in document["audit"] if e["action"] != "event.imported"]
    return document


if __name__ == "__main__":
    sys.exit(main())
