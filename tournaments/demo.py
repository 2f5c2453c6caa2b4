"""Demo events at each stage, built only through the service functions.

``load_demo_events()`` is what ``manage.py load_demo`` (and so ``./dev serve``) runs. The
round-playing helpers are shared with the test suite (tests/tournaments/factories.py).
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db import transaction

from decks.models import Format

from . import services
from .models import Event, Match, Round

DEMO_DECK = "4 森原 さとみ\n46 スワティ\n"
DEMO_PASSWORD = "demo-player"


def hp_win(seat: int) -> dict:
    """A game won by ``seat`` (1 or 2): the other player's HP reached 0."""
    return {"end": "hp_zero", "hp": [12, 0] if seat == 1 else [0, 12]}


def time_draw() -> dict:
    return {"end": "time", "hp": [10, 10]}


def games_for(record: str) -> list[dict]:
    """Games giving ``record`` from player 1's side: "2-0", "2-1", "0-2", "1-2", "1-1-1",
    "1-0-1" or "0-0-3"."""
    table = {
        "2-0": [hp_win(1), hp_win(1)],
        "2-1": [hp_win(1), hp_win(2), hp_win(1)],
        "0-2": [hp_win(2), hp_win(2)],
        "1-2": [hp_win(2), hp_win(1), hp_win(2)],
        "1-1-1": [hp_win(1), hp_win(2), time_draw()],
        "1-0-1": [hp_win(1), time_draw()],
        "0-0-3": [time_draw(), time_draw(), time_draw()],
    }
    return table[record]


def report_all(round_: Round, results=None) -> None:
    """Player 1 reports and player 2 confirms every match of ``round_``;
    ``results(round_number, table)`` gives the record (default "2-0")."""
    matches = Match.objects.filter(round=round_).select_related(
        "player1__player", "player2__player"
    )
    for match in matches.order_by("table"):
        if match.player2_id is None:
            continue
        record = results(round_.number, match.table) if results else "2-0"
        match = services.report_result(
            match,
            actor=match.player1.player,
            games=games_for(record),
            expected_version=match.version,
        )
        services.confirm_result(match, actor=match.player2.player, expected_version=match.version)


def play_round(event: Event, organizer, results=None) -> Round:
    """Generate, publish and start the next Swiss round, report and confirm every match,
    and close it. Returns the closed round."""
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    report_all(round_, results)
    return services.close_round(round_, actor=organizer)


def play_top_cut_round(round_: Round, organizer) -> Round:
    services.publish_round(round_, actor=organizer)
    report_all(round_)
    return services.close_round(round_, actor=organizer)


def _varied(round_number: int, table: int) -> str:
    return {1: "2-1", 2: "1-1-1", 3: "0-2"}.get((round_number + table) % 4, "2-0")


def _user(username: str):
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        user = user_model.objects.create_user(username, password=DEMO_PASSWORD)
    return user


@transaction.atomic
def load_demo_events() -> list[Event]:
    """Create the demo events that do not exist yet (by name); returns those created."""
    fmt = Format.objects.get(slug="crossover")
    organizer = _user("demo-organizer")
    players = [_user(f"demo-player{n:02d}") for n in range(1, 13)]
    stages = {
        "Demo: registration open": _registration_open,
        "Demo: mid-Swiss": _mid_swiss,
        "Demo: top cut": _top_cut,
        "Demo: finished": _finished,
    }
    created = []
    for offset, (name, build) in enumerate(stages.items()):
        if Event.objects.filter(name=name).exists():
            continue
        event = services.create_event(
            organizer=organizer,
            format=fmt,
            name=name,
            date=dt.date(2002, 4, 6) + dt.timedelta(days=7 * offset),
            capacity=16,
            pairing_seed=name,
        )
        event = services.open_registration(event, actor=organizer)
        build(event, organizer, players)
        event.refresh_from_db()
        created.append(event)
    return created


def _register(event, players):
    return [services.register_player(event, actor=p, deck_text=DEMO_DECK) for p in players]


def _registration_open(event, organizer, players):
    _register(event, players[:6])


def _mid_swiss(event, organizer, players):
    services.update_event(event, actor=organizer, swiss_rounds=4)
    _register(event, players[:8])
    services.start_event(event, actor=organizer)
    play_round(event, organizer, _varied)
    play_round(event, organizer, _varied)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)


def _top_cut(event, organizer, players):
    services.update_event(event, actor=organizer, swiss_rounds=3, top_cut_size=4)
    _register(event, players[:8])
    services.start_event(event, actor=organizer)
    for _ in range(3):
        play_round(event, organizer, _varied)
    services.generate_top_cut(event, actor=organizer)


def _finished(event, organizer, players):
    services.update_event(event, actor=organizer, swiss_rounds=3, top_cut_size=4)
    _register(event, players[4:12])
    services.start_event(event, actor=organizer)
    for _ in range(3):
        play_round(event, organizer, _varied)
    round_ = services.generate_top_cut(event, actor=organizer)
    play_top_cut_round(round_, organizer)
    round_ = services.advance_bracket(event, actor=organizer)
    play_top_cut_round(round_, organizer)
    services.finish_event(event, actor=organizer)
