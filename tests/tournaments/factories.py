"""Deterministic users and game reports for the tournament tests, and builders that run an
event through the service functions (never raw ORM writes)."""

from __future__ import annotations

import datetime as dt

import factory
from django.contrib.auth import get_user_model

from tests.decks.conftest import LEGAL_DECK
from tournaments import services
from tournaments.models import Match, Round

EVENT_DATE = dt.date(2026, 5, 16)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n:04d}")
    password = factory.django.Password("pw")


# --- games, as a player's report form sends them ----------------------------------------


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


# --- builders ------------------------------------------------------------------------


def new_event(organizer, fmt, **settings):
    values = {
        "name": "Spring Open",
        "date": EVENT_DATE,
        "capacity": 16,
        "pairing_seed": "tests",
        **settings,
    }
    return services.create_event(organizer=organizer, format=fmt, **values)


def open_event(organizer, fmt, **settings):
    event = new_event(organizer, fmt, **settings)
    return services.open_registration(event, actor=organizer)


def register_all(event, players, deck_text: str = LEGAL_DECK):
    return [
        services.register_player(event, actor=player, deck_text=deck_text) for player in players
    ]


def play_round(event, organizer, results=None):
    """Generate, publish and start the next Swiss round, have player 1 report and player 2
    confirm every match, and close it. ``results(round_number, table)`` gives the record
    (default "2-0"). Returns the closed round."""
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    report_all(round_, results)
    return services.close_round(round_, actor=organizer)


def report_all(round_: Round, results=None) -> None:
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


def play_top_cut_round(round_: Round, organizer) -> Round:
    services.publish_round(round_, actor=organizer)
    report_all(round_)
    return services.close_round(round_, actor=organizer)
