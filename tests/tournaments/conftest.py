"""Fixtures for the tournament domain tests: the deck tests' small card pool and formats,
users in every role, and composite events built through the service functions."""

import contextlib
from types import SimpleNamespace

import pytest
from django.db import transaction

from tests.decks import conftest as deck_fixtures
from tests.factories import GameFactory
from tournaments import services
from tournaments.models import StaffRole

from .factories import UserFactory, open_event, play_round, register_all

# The deck tests' card pool and built-in formats (decks are checked against them).
sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover


@pytest.fixture
def organizer(db):
    return UserFactory(username="organizer")


@pytest.fixture
def co_organizer(db):
    return UserFactory(username="co-organizer")


@pytest.fixture
def judge(db):
    return UserFactory(username="judge")


@pytest.fixture
def outsider(db):
    return UserFactory(username="outsider")


@pytest.fixture
def make_players(db):
    def make(count: int, prefix: str = "player"):
        return [UserFactory(username=f"{prefix}{n:03d}") for n in range(1, count + 1)]

    return make


def build_staffed_event(organizer, co_organizer, judge, crossover):
    """An event open for registration with a co-organizer and a judge."""
    event = open_event(organizer, crossover)
    services.add_staff(event, actor=organizer, user=co_organizer, role=StaffRole.CO_ORGANIZER)
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    return event


@pytest.fixture
def staffed_event(organizer, co_organizer, judge, crossover):
    """An event open for registration with a co-organizer and a judge."""
    return build_staffed_event(organizer, co_organizer, judge, crossover)


def _after_round_3_results(number: int, table: int) -> str:
    # Deterministic variety: a 2-1, a draw and a win for player 2 in every round.
    return {1: "2-1", 2: "1-1-1", 3: "0-2"}.get(table, "2-0")


@pytest.fixture
def event_after_round_3(staffed_event, organizer, judge, make_players):
    """Eight players, five Swiss rounds and a top 4 planned; rounds 1–3 played, reported,
    confirmed and closed; one player dropped after round 2; a warning issued. Built only
    through tournaments.services."""
    return build_event_after_round_3(staffed_event, organizer, judge, make_players(8))


def build_event_after_round_3(staffed_event, organizer, judge, players):
    """The ``event_after_round_3`` fixture's event, built on ``staffed_event`` with eight
    ``players``."""
    event = staffed_event
    services.update_event(event, actor=organizer, swiss_rounds=5, top_cut_size=4)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    rounds = [play_round(event, organizer, _after_round_3_results)]
    rounds.append(play_round(event, organizer, _after_round_3_results))
    dropped = services.drop_player(registrations[7], actor=players[7])
    rounds.append(play_round(event, organizer, _after_round_3_results))
    warning = services.issue_penalty(
        registrations[0], actor=judge, kind="warning", infraction="Slow play"
    )
    event.refresh_from_db()
    return SimpleNamespace(
        event=event,
        organizer=organizer,
        judge=judge,
        players=players,
        registrations=registrations,
        dropped=dropped,
        rounds=rounds,
        warning=warning,
    )


def build_world_after_round_3():
    """Everything ``event_after_round_3`` stands on, without fixtures: the game, its cards
    and formats, the organizer, co-organizer and judge, players ``player001``…``player008``
    (the fixtures' usernames) and the event after round 3 (``built``)."""
    game = GameFactory()
    deck_fixtures.make_cards(game, deck_fixtures.make_sets(game))
    crossover = deck_fixtures.make_formats()["crossover"]
    organizer, co_organizer, judge = (
        UserFactory(username=name) for name in ("organizer", "co-organizer", "judge")
    )
    players = [UserFactory(username=f"player{n:03d}") for n in range(1, 9)]
    built = build_event_after_round_3(
        build_staffed_event(organizer, co_organizer, judge, crossover), organizer, judge, players
    )
    return SimpleNamespace(
        crossover=crossover,
        organizer=organizer,
        co_organizer=co_organizer,
        judge=judge,
        players=players,
        built=built,
    )


@contextlib.contextmanager
def rolled_back_at_the_end(django_db_blocker):
    """For data a module builds once (a module-scoped fixture): written inside a transaction
    rolled back when the module is done; each test runs in a savepoint of it
    (pytest-django's ``db``), as ``TestCase.setUpTestData`` does."""
    with django_db_blocker.unblock(), transaction.atomic():
        try:
            yield
        finally:
            transaction.set_rollback(True)
