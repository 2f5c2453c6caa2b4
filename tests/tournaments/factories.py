"""Deterministic users and game reports for the tournament tests, and builders that run an
event through the service functions (never raw ORM writes)."""

from __future__ import annotations

import datetime as dt

import factory
from django.contrib.auth import get_user_model

from tests.decks.conftest import LEGAL_DECK
from tournaments import services

# Game reports as a player's form sends them, and round playing: shared with the demo
# events (tournaments/demo.py), which are built the same way.
from tournaments.demo import (
    games_for,
    hp_win,
    play_round,
    play_top_cut_round,
    report_all,
    time_draw,
)

__all__ = [
    "EVENT_DATE",
    "UserFactory",
    "games_for",
    "hp_win",
    "new_event",
    "open_event",
    "play_round",
    "play_top_cut_round",
    "register_all",
    "report_all",
    "time_draw",
]

EVENT_DATE = dt.date(2026, 5, 16)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n:04d}")
    password = factory.django.Password("pw")


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
