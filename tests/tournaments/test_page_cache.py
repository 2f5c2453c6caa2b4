"""The versioned page cache (issue 10) never serves a stale page.

Public pages and the standings/pairings API answers are cached per event revision
(``EventRevision.number``; the standings per ``EventRevision.standings``), which
``services.audit.record`` bumps with every audited change. These tests walk the services
as the permission matrix walks the URLs: every service in ``tournaments.services.__all__``
that changes state has at least one line in :data:`SCENARIOS` (or is named in
:data:`NOT_STATE_CHANGING`), so a service added later without a scenario fails
:func:`test_every_state_changing_service_has_a_scenario`. For each scenario:

* the call bumps ``EventRevision.number`` by exactly one (one audit entry per change);
* if the standings changed, ``EventRevision.standings`` went up;
* every cached page and API answer, fetched before the change (warming the cache) and
  again after it, is what a fresh render (empty cache) gives, for an anonymous visitor,
  a player of the event and a staff member; a client holding an ETag from before the
  change never gets a 304 for content that changed, and one holding the current ETag does.

A refused call changes neither counter, and reports in an open round leave the standings
cached (no standings queries at all).

The events are built once for the module through the services, inside a transaction
rolled back at the end; each test runs in a savepoint rolled back after it (as in
test_permission_matrix.py), so a scenario's set-up costs only its own last steps.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.decks.conftest import LEGAL_DECK
from tournaments import services, snapshots
from tournaments.models import (
    AuditEntry,
    Event,
    EventRevision,
    EventStaff,
    Match,
    Registration,
    Round,
    RoundStatus,
    StaffRole,
)
from tournaments.services.errors import TournamentError

from .factories import (
    EVENT_DATE,
    UserFactory,
    games_for,
    new_event,
    open_event,
    play_round,
    play_top_cut_round,
    register_all,
    report_all,
)
from .matrix_spec import _card_pool  # the deck tests' small card pool, built without fixtures

# Names of tournaments.services.__all__ that change nothing: reads, pure helpers, the
# error classes and the standings' result types. Everything else must have a scenario.
NOT_STATE_CHANGING = frozenset(
    {
        # reads and pure helpers
        "check_decklist",
        "compute_standings",
        "decklist_locked",
        "preview_result",
        "suggested_swiss_rounds",
        # errors
        "CapacityFull",
        "Conflict",
        "DeckIllegal",
        "InvalidInput",
        "InvalidResult",
        "InvalidState",
        "NotAllowed",
        "TournamentError",
        # the standings' result types
        "EventStandings",
        "StandingLine",
    }
)


# --- the world ---------------------------------------------------------------------------


def build_world() -> SimpleNamespace:
    """Four events at different stages, built only through the services:

    * ``draft``: a draft event with its staff;
    * ``open``: registration open, capacity 6, five players (the fifth without a decklist);
    * ``r3``: running, eight players, five Swiss rounds and a top 4 planned, re-entry
      allowed; rounds 1–3 closed (varied results), the eighth player dropped after
      round 2, a warning issued;
    * ``cut``: running, six players, two Swiss rounds (closed) and a top 4 planned.

    The organizer, a co-organizer and a judge staff every event."""
    _game, _card, crossover = _card_pool()
    organizer = UserFactory(username="organizer")
    co_organizer = UserFactory(username="co-organizer")
    judge = UserFactory(username="judge")

    def staffed(event):
        services.add_staff(event, actor=organizer, user=co_organizer, role=StaffRole.CO_ORGANIZER)
        services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
        return event

    w = SimpleNamespace(
        format=crossover,
        organizer=organizer,
        co_organizer=co_organizer,
        judge=judge,
        helper=UserFactory(username="helper"),
        outsider=UserFactory(username="outsider"),
        newcomer=UserFactory(username="newcomer"),
        ids={},
    )

    w.ids["draft"] = staffed(new_event(organizer, crossover, name="Draft Cup")).pk

    event = staffed(open_event(organizer, crossover, name="Open Cup", capacity=6))
    w.open_players = [UserFactory(username=f"open-player{n}") for n in range(1, 6)]
    register_all(event, w.open_players[:4])
    services.register_player(event, actor=w.open_players[4])  # no decklist yet
    w.ids["open"] = event.pk

    event = staffed(open_event(organizer, crossover, name="Running Cup"))
    services.update_event(
        event, actor=organizer, swiss_rounds=5, top_cut_size=4, allow_reentry=True
    )
    w.r3_players = [UserFactory(username=f"run-player{n}") for n in range(1, 9)]
    registrations = register_all(event, w.r3_players)
    services.start_event(event, actor=organizer)

    def varied(number: int, table: int) -> str:
        return {1: "2-1", 2: "1-1-1", 3: "0-2"}.get(table, "2-0")

    play_round(event, organizer, varied)
    play_round(event, organizer, varied)
    services.drop_player(registrations[7], actor=w.r3_players[7])
    play_round(event, organizer, varied)
    services.issue_penalty(registrations[0], actor=judge, kind="warning", infraction="Slow play")
    w.ids["r3"] = event.pk

    event = staffed(open_event(organizer, crossover, name="Cut Cup"))
    services.update_event(event, actor=organizer, swiss_rounds=2, top_cut_size=4)
    w.cut_players = [UserFactory(username=f"cut-player{n}") for n in range(1, 7)]
    register_all(event, w.cut_players)
    services.start_event(event, actor=organizer)
    play_round(event, organizer, varied)
    play_round(event, organizer, varied)
    w.ids["cut"] = event.pk
    return w


@pytest.fixture(scope="module", autouse=True)
def _quiet_refusals():
    """Django logs every 404 (drafts asked for by visitors): expected here."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield build_world()
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture
def db(world, django_db_blocker):
    """The world, and this test's changes rolled back after it (a savepoint in the world's
    transaction). Replaces pytest-django's ``db`` in this module (the caches are emptied
    before every test by tests/conftest.py)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield world
        transaction.set_rollback(True)


# Model instances are loaded fresh in every test: services change the instances they are
# given, and the world's must stay as built.


def event_of(w, key: str) -> Event:
    return Event.objects.get(pk=w.ids[key])


def registration_of(w, key: str, user) -> Registration:
    return Registration.objects.get(event_id=w.ids[key], player=user)


def round_of(w, key: str, number: int) -> Round:
    return Round.objects.get(event_id=w.ids[key], number=number)


def tables(round_: Round) -> list[Match]:
    """The round's matches between two players (no byes), by table."""
    return list(
        Match.objects.filter(round=round_, player2__isnull=False)
        .select_related("player1__player", "player2__player")
        .order_by("table")
    )


def counters(event_pk: int | None) -> tuple[int, int]:
    """(number, standings) of the event's revision; (0, 0) for an event not made yet."""
    if event_pk is None:
        return 0, 0
    row = EventRevision.objects.filter(event_id=event_pk).values_list("number", "standings")
    return row.first() or (0, 0)


def audit_count(event_pk: int | None) -> int:
    return 0 if event_pk is None else AuditEntry.objects.filter(event_id=event_pk).count()


def standings_data(event_pk: int | None):
    """The standings as plain, comparable data (None for an event not made yet)."""
    if event_pk is None:
        return None
    # Computed from the database, not from this process's memo (which is keyed by the
    # very revision under test).
    snapshots.forget_engine_standings()
    return snapshots._build_standings(Event.objects.get(pk=event_pk))


# --- the scenarios -----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """A scenario, set up: the one service call to make, and the player whose pages to
    watch (their "my match" page and own rows)."""

    call: Callable[[], object]
    player: object


@dataclass(frozen=True)
class Scenario:
    service: str  # the name in tournaments.services
    event: str | None  # the world's event the change is made to; None: the call makes one
    prepare: Callable[[SimpleNamespace], Step]


SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str, service: str, event: str | None):
    def register(prepare):
        assert name not in SCENARIOS, name
        SCENARIOS[name] = Scenario(service, event, prepare)
        return prepare

    return register


# draft, and new events


@scenario("create_event", "create_event", None)
def _create_event(w):
    return Step(
        lambda: services.create_event(
            organizer=w.organizer, format=w.format, name="Autumn Open", date=EVENT_DATE, capacity=8
        ),
        w.outsider,
    )


@scenario("open_registration", "open_registration", "draft")
def _open_registration(w):
    event = event_of(w, "draft")
    return Step(lambda: services.open_registration(event, actor=w.organizer), w.outsider)


# registration open


@scenario("register_player", "register_player", "open")
def _register_player(w):
    event = event_of(w, "open")
    return Step(
        lambda: services.register_player(event, actor=w.newcomer, deck_text=LEGAL_DECK),
        w.newcomer,
    )


@scenario("submit_decklist", "submit_decklist", "open")
def _submit_decklist(w):
    player = w.open_players[4]
    registration = registration_of(w, "open", player)
    return Step(
        lambda: services.submit_decklist(registration, actor=player, deck_text=LEGAL_DECK),
        player,
    )


@scenario("drop_player:withdraw", "drop_player", "open")
def _withdraw(w):
    player = w.open_players[0]
    registration = registration_of(w, "open", player)
    return Step(lambda: services.drop_player(registration, actor=player), player)


@scenario("add_staff", "add_staff", "open")
def _add_staff(w):
    event = event_of(w, "open")
    return Step(
        lambda: services.add_staff(event, actor=w.organizer, user=w.helper, role=StaffRole.JUDGE),
        w.open_players[0],
    )


@scenario("remove_staff", "remove_staff", "open")
def _remove_staff(w):
    # The judge is the staff viewer of the page test: their pages lose the staff parts.
    staff = EventStaff.objects.get(event_id=w.ids["open"], user=w.judge)
    return Step(lambda: services.remove_staff(staff, actor=w.organizer), w.open_players[0])


@scenario("update_event:open", "update_event", "open")
def _update_open(w):
    event = event_of(w, "open")
    return Step(
        lambda: services.update_event(
            event,
            actor=w.organizer,
            name="Open Cup (moved)",
            capacity=8,
            tiebreak_profile="pokemon",
        ),
        w.open_players[0],
    )


@scenario("start_event", "start_event", "open")
def _start_event(w):
    registration = registration_of(w, "open", w.open_players[4])
    services.submit_decklist(registration, actor=w.open_players[4], deck_text=LEGAL_DECK)
    event = event_of(w, "open")
    return Step(lambda: services.start_event(event, actor=w.organizer), w.open_players[0])


@scenario("issue_penalty:warning", "issue_penalty", "open")
def _warning(w):
    player = w.open_players[1]
    registration = registration_of(w, "open", player)
    return Step(
        lambda: services.issue_penalty(
            registration, actor=w.judge, kind="warning", infraction="Tardiness"
        ),
        player,
    )


# running, rounds 1–3 closed


@scenario("generate_round", "generate_round", "r3")
def _generate_round(w):
    event = event_of(w, "r3")
    return Step(lambda: services.generate_round(event, actor=w.organizer), w.r3_players[0])


@scenario("add_late_entry", "add_late_entry", "r3")
def _late_entry(w):
    event = event_of(w, "r3")
    return Step(
        lambda: services.add_late_entry(
            event, actor=w.judge, player=w.newcomer, deck_text=LEGAL_DECK, reason="stuck in traffic"
        ),
        w.newcomer,
    )


@scenario("reenter", "reenter", "r3")
def _reenter(w):
    player = w.r3_players[7]
    registration = registration_of(w, "r3", player)
    return Step(lambda: services.reenter(registration, actor=player), player)


@scenario("drop_player:between_rounds", "drop_player", "r3")
def _drop_between_rounds(w):
    player = w.r3_players[0]
    registration = registration_of(w, "r3", player)
    return Step(lambda: services.drop_player(registration, actor=player), player)


@scenario("override_result:closed_round", "override_result", "r3")
def _override_closed(w):
    match = tables(round_of(w, "r3", 3))[0]  # a 2-1 for player 1
    return Step(
        lambda: services.override_result(
            match,
            actor=w.judge,
            expected_version=match.version,
            reason="slip filled in the wrong way round",
            record="0-2",
        ),
        match.player1.player,
    )


@scenario("issue_penalty:disqualification_between_rounds", "issue_penalty", "r3")
def _disqualify_between_rounds(w):
    player = w.r3_players[1]
    registration = registration_of(w, "r3", player)
    return Step(
        lambda: services.issue_penalty(
            registration, actor=w.judge, kind="disqualification", infraction="Marked cards"
        ),
        player,
    )


@scenario("update_event:running", "update_event", "r3")
def _update_running(w):
    event = event_of(w, "r3")
    return Step(
        lambda: services.update_event(
            event, actor=w.organizer, name="Running Cup (day 2)", round_minutes=45
        ),
        w.r3_players[0],
    )


# round 4 of ``r3``


def round_4(w, *, publish: bool = True, report_first: bool = True) -> Round:
    """Pair round 4 of ``r3``; publish it; player 1 of table 1 reports a 2-1."""
    round_ = services.generate_round(event_of(w, "r3"), actor=w.organizer)
    if publish:
        round_ = services.publish_round(round_, actor=w.organizer)
    if report_first:
        match = tables(round_)[0]
        services.report_result(
            match,
            actor=match.player1.player,
            games=games_for("2-1"),
            expected_version=match.version,
        )
    return round_


@scenario("publish_round", "publish_round", "r3")
def _publish(w):
    round_ = round_4(w, publish=False, report_first=False)
    player = tables(round_)[0].player1.player
    return Step(lambda: services.publish_round(round_, actor=w.organizer), player)


@scenario("repair_round", "repair_round", "r3")
def _repair(w):
    round_ = round_4(w, publish=False, report_first=False)
    player = tables(round_)[0].player1.player
    return Step(
        lambda: services.repair_round(round_, actor=w.organizer, reason="late check-in"), player
    )


@scenario("edit_pairing", "edit_pairing", "r3")
def _edit_pairing(w):
    round_ = round_4(w, publish=False, report_first=False)
    first, second = tables(round_)[:2]
    changes = {
        first.table: (first.player1_id, second.player2_id),
        second.table: (second.player1_id, first.player2_id),
    }
    return Step(
        lambda: services.edit_pairing(
            round_, actor=w.organizer, tables=changes, reason="seating", allow_rematch=True
        ),
        first.player1.player,
    )


@scenario("start_round_clock", "start_round_clock", "r3")
def _start_clock(w):
    round_ = round_4(w)
    return Step(
        lambda: services.start_round_clock(round_, actor=w.organizer),
        tables(round_)[0].player1.player,
    )


@scenario("report_result", "report_result", "r3")
def _report(w):
    match = tables(round_4(w))[1]
    player = match.player1.player
    return Step(
        lambda: services.report_result(
            match, actor=player, games=games_for("2-0"), expected_version=match.version
        ),
        player,
    )


@scenario("confirm_result", "confirm_result", "r3")
def _confirm(w):
    match = tables(round_4(w))[0]  # reported by player 1
    player = match.player2.player
    return Step(
        lambda: services.confirm_result(match, actor=player, expected_version=match.version),
        player,
    )


@scenario("dispute_result", "dispute_result", "r3")
def _dispute(w):
    match = tables(round_4(w))[0]  # reported by player 1
    player = match.player2.player
    return Step(
        lambda: services.dispute_result(
            match, actor=player, expected_version=match.version, reason="game 3 was a draw"
        ),
        player,
    )


@scenario("override_result:open_round", "override_result", "r3")
def _override_open(w):
    match = tables(round_4(w))[1]
    return Step(
        lambda: services.override_result(
            match, actor=w.judge, expected_version=match.version, reason="slip", record="2-1"
        ),
        match.player1.player,
    )


@scenario("issue_penalty:game_loss", "issue_penalty", "r3")
def _game_loss(w):
    match = tables(round_4(w))[1]
    player = match.player1.player
    registration = registration_of(w, "r3", player)
    return Step(
        lambda: services.issue_penalty(
            registration,
            actor=w.judge,
            kind="game_loss",
            infraction="Drawing extra cards",
            match=match,
        ),
        player,
    )


@scenario("issue_penalty:disqualification_in_round", "issue_penalty", "r3")
def _disqualify_in_round(w):
    match = tables(round_4(w))[1]
    player = match.player2.player
    registration = registration_of(w, "r3", player)
    return Step(
        lambda: services.issue_penalty(
            registration, actor=w.judge, kind="disqualification", infraction="Bribery"
        ),
        match.player1.player,  # the opponent, whose match becomes a win
    )


@scenario("drop_player:in_round", "drop_player", "r3")
def _drop_in_round(w):
    player = tables(round_4(w))[2].player1.player
    registration = registration_of(w, "r3", player)
    return Step(lambda: services.drop_player(registration, actor=player), player)


@scenario("extend_match_time", "extend_match_time", "r3")
def _extend_time(w):
    round_ = round_4(w)
    services.start_round_clock(round_, actor=w.organizer)
    match = tables(round_)[1]
    return Step(
        lambda: services.extend_match_time(match, actor=w.judge, minutes=3, reason="deck check"),
        match.player1.player,
    )


@scenario("close_round", "close_round", "r3")
def _close(w):
    round_ = round_4(w, report_first=False)
    report_all(round_, lambda number, table: {1: "2-1", 2: "0-2"}.get(table, "2-0"))
    return Step(
        lambda: services.close_round(round_, actor=w.organizer),
        tables(round_)[0].player1.player,
    )


# the top cut


@scenario("generate_top_cut", "generate_top_cut", "cut")
def _top_cut(w):
    event = event_of(w, "cut")
    return Step(lambda: services.generate_top_cut(event, actor=w.organizer), w.cut_players[0])


def semifinals(w) -> Round:
    round_ = services.generate_top_cut(event_of(w, "cut"), actor=w.organizer)
    return play_top_cut_round(round_, w.organizer)


@scenario("advance_bracket", "advance_bracket", "cut")
def _advance(w):
    semis = semifinals(w)
    event = event_of(w, "cut")
    return Step(
        lambda: services.advance_bracket(event, actor=w.organizer), tables(semis)[0].player1.player
    )


@scenario("finish_event", "finish_event", "cut")
def _finish(w):
    semifinals(w)
    final = services.advance_bracket(event_of(w, "cut"), actor=w.organizer)
    final = play_top_cut_round(final, w.organizer)
    event = event_of(w, "cut")
    return Step(
        lambda: services.finish_event(event, actor=w.organizer), tables(final)[0].player1.player
    )


SCENARIO_NAMES = sorted(SCENARIOS)


def run(monkeypatch, name: str, step: Step):
    """Make the scenario's call, checking that it calls its service exactly once (through
    ``tournaments.services``, which is what the scenario names)."""
    service = SCENARIOS[name].service
    real = getattr(services, service)
    calls = []

    def spy(*args, **kwargs):
        calls.append(service)
        return real(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(services, service, spy)
        result = step.call()
    assert calls == [service], f"scenario {name!r} must call services.{service} once"
    return result


def event_pk_after(name: str, w, result) -> int:
    key = SCENARIOS[name].event
    return w.ids[key] if key is not None else result.pk


# --- 1. every state-changing service bumps the revision ----------------------------------


def test_every_state_changing_service_has_a_scenario():
    covered = {entry.service for entry in SCENARIOS.values()}
    missing = sorted(set(services.__all__) - NOT_STATE_CHANGING - covered)
    assert not missing, (
        "services without a scenario in test_page_cache.SCENARIOS (or, if they change "
        "nothing, a line in NOT_STATE_CHANGING): " + ", ".join(missing)
    )


def test_the_lists_name_real_services():
    exported = set(services.__all__)
    assert exported >= NOT_STATE_CHANGING, sorted(NOT_STATE_CHANGING - exported)
    unknown = sorted({entry.service for entry in SCENARIOS.values()} - exported)
    assert not unknown, f"scenarios of names not in services.__all__: {unknown}"
    changing = sorted(NOT_STATE_CHANGING & {entry.service for entry in SCENARIOS.values()})
    assert not changing, f"both excluded and given a scenario: {changing}"
    for name in exported - NOT_STATE_CHANGING:
        assert callable(getattr(services, name)), name


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_service_bumps_the_revision_once(db, monkeypatch, name):
    w = db
    step = SCENARIOS[name].prepare(w)
    key = SCENARIOS[name].event
    before_pk = w.ids[key] if key is not None else None
    number, standings = counters(before_pk)
    entries = audit_count(before_pk)

    result = run(monkeypatch, name, step)

    pk = event_pk_after(name, w, result)
    after_number, after_standings = counters(pk)
    assert after_number == number + 1, (
        f"{SCENARIOS[name].service} moved EventRevision.number {number} → {after_number}"
    )
    assert after_standings >= standings
    assert audit_count(pk) == entries + 1


def _report_by_outsider(w):
    match = tables(round_4(w))[1]
    return "r3", lambda: services.report_result(
        match, actor=w.outsider, games=games_for("2-0"), expected_version=match.version
    )


def _confirm_stale(w):
    match = tables(round_4(w))[0]
    return "r3", lambda: services.confirm_result(
        match, actor=match.player2.player, expected_version=match.version - 1
    )


def _generate_while_open(w):
    round_4(w)
    event = event_of(w, "r3")
    return "r3", lambda: services.generate_round(event, actor=w.organizer)


def _close_with_results_missing(w):
    round_ = round_4(w)
    return "r3", lambda: services.close_round(round_, actor=w.organizer)


def _register_twice(w):
    event = event_of(w, "open")
    return "open", lambda: services.register_player(
        event, actor=w.open_players[0], deck_text=LEGAL_DECK
    )


def _settings_by_judge(w):
    event = event_of(w, "open")
    return "open", lambda: services.update_event(event, actor=w.judge, name="Judge's Cup")


def _penalty_by_player(w):
    registration = registration_of(w, "r3", w.r3_players[2])
    return "r3", lambda: services.issue_penalty(
        registration, actor=w.r3_players[3], kind="warning", infraction="Slow play"
    )


REFUSALS = {
    "report_result by an outsider": (_report_by_outsider, "not_participant"),
    "confirm_result with a stale version": (_confirm_stale, "stale_version"),
    "generate_round while a round is open": (_generate_while_open, "previous_round_open"),
    "close_round with results missing": (_close_with_results_missing, "results_missing"),
    "register_player twice": (_register_twice, "already_registered"),
    "update_event by a judge": (_settings_by_judge, "not_manager"),
    "issue_penalty by a player": (_penalty_by_player, "not_staff"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refused_call_changes_no_counter(db, name):
    prepare, code = REFUSALS[name]
    key, call = prepare(db)
    pk = db.ids[key]
    before = counters(pk)
    entries = audit_count(pk)
    with pytest.raises(TournamentError) as refused:
        call()
    assert refused.value.code == code
    assert counters(pk) == before
    assert audit_count(pk) == entries


# --- 2. the standings counter moves when the standings change ----------------------------


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_standings_counter_moves_when_the_standings_change(db, monkeypatch, name):
    w = db
    step = SCENARIOS[name].prepare(w)
    key = SCENARIOS[name].event
    before_pk = w.ids[key] if key is not None else None
    _number, standings = counters(before_pk)
    table = standings_data(before_pk)

    result = run(monkeypatch, name, step)

    pk = event_pk_after(name, w, result)
    changed = standings_data(pk) != table
    if changed:
        assert counters(pk)[1] > standings, (
            f"{SCENARIOS[name].service} changed the standings but not "
            f"EventRevision.standings (still {standings}): the cached standings are stale"
        )


# --- 3. no stale page after a change -----------------------------------------------------

# The CSRF token a page's forms carry is masked anew at every render.
CSRF_INPUT = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')
# A CSRF secret of the right shape: with it set before the first request, the session's
# secret (one of the ETag's parts) is the same for every request of the test.
CSRF_SECRET = "pagecachetests" + "0" * 18


def viewers(w, step: Step) -> dict[str, Client]:
    clients = {}
    for role, user in (("anonymous", None), ("player", step.player), ("staff", w.judge)):
        client = Client()
        if user is not None:
            client.force_login(user)
        client.cookies[settings.CSRF_COOKIE_NAME] = CSRF_SECRET
        clients[role] = client
    return clients


def watched_urls(event_pk: int, query: str) -> list[str]:
    """The event page, the standings (page 1 and a search), the viewer's match, the
    standings API; the pairings (by table and by name) of the latest round the public
    sees; by table, the latest round (a draft, which only the staff see) and the next one
    (not there yet: a 404 that a change may turn into a page); the pairings API of each
    of those rounds."""
    rows = list(Round.objects.filter(event_id=event_pk).values_list("number", "status"))
    latest = max((number for number, _status in rows), default=0)
    public = max((number for number, status in rows if status != RoundStatus.DRAFT), default=0)
    standings = reverse("tournaments:standings", args=[event_pk])
    urls = [
        reverse("tournaments:event_detail", args=[event_pk]),
        standings,
        f"{standings}?q={query}",
        reverse("tournaments:my_match", args=[event_pk]),
        reverse("event-standings", args=[event_pk]),
    ]
    for number in sorted({public, latest, latest + 1} - {0}):
        pairings = reverse("tournaments:pairings", args=[event_pk, number])
        urls.append(pairings)
        if number == public:
            urls.append(f"{pairings}?by=name")
        urls.append(
            reverse("event-round-pairings", kwargs={"event_pk": event_pk, "number": number})
        )
    return urls


def fetch(client: Client, url: str, etag: str | None = None):
    headers = {}
    if url.startswith("/api/"):
        headers["Accept"] = "application/json"
    if etag is not None:
        headers["If-None-Match"] = etag
    return client.get(url, headers=headers)


SERVER_NOW = re.compile(r'data-server-now="[^"]*"')


def shown(response) -> tuple:
    """What a response shows, the per-render CSRF token aside."""
    body = CSRF_INPUT.sub(r"\1\2", response.content.decode())
    # The clock's server time is put in per response (live.js counts down from it).
    body = SERVER_NOW.sub('data-server-now=""', body)
    return response.status_code, response.get("Location"), body


def difference(old: tuple, new: tuple) -> str:
    if old[:2] != new[:2]:
        return f"status/location {old[:2]} vs fresh {new[:2]}"
    lines = difflib.unified_diff(
        old[2].splitlines(), new[2].splitlines(), "served", "fresh", n=0, lineterm=""
    )
    return "\n".join(list(lines)[:12])


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_no_stale_page_after_a_change(db, monkeypatch, name):
    w = db
    step = SCENARIOS[name].prepare(w)
    key = SCENARIOS[name].event
    clients = viewers(w, step)
    query = step.player.get_username()

    # Before: every page and answer once, which caches them.
    before = {}
    if key is not None:
        urls = watched_urls(w.ids[key], query)
        for role, client in clients.items():
            for url in urls:
                response = fetch(client, url)
                before[role, url] = (shown(response), response.get("ETag"))

    result = run(monkeypatch, name, step)
    problems = []
    if key is None:  # a new event: nothing of it was cached before
        urls = watched_urls(event_pk_after(name, w, result), query)

    # After: the same requests, answered from what the cache holds.
    served = {}
    for role, client in clients.items():
        for url in urls:
            response = fetch(client, url)
            served[role, url] = (shown(response), response.get("ETag"))
            if response.status_code == 200 and not response.get("Cache-Control"):
                problems.append(f"{role} {url}: no Cache-Control")
    # A client holding the current ETag gets a 304 with the caching headers.
    for (role, url), (page, tag) in served.items():
        if page[0] != 200:
            continue
        if not tag:
            problems.append(f"{role} {url}: no ETag")
            continue
        again = fetch(clients[role], url, etag=tag)
        if again.status_code != 304 or again.get("ETag") != tag:
            problems.append(f"{role} {url}: its current ETag answered {again.status_code}")
        elif not again.get("Cache-Control"):
            problems.append(f"{role} {url}: a 304 without Cache-Control")
    # What the same requests give when nothing is cached.
    cache.clear()
    snapshots.forget_engine_standings()  # and this process's memo
    fresh = {
        (role, url): shown(fetch(client, url)) for role, client in clients.items() for url in urls
    }
    for (role, url), page in fresh.items():
        if served[role, url][0] != page:
            problems.append(
                f"{role} {url}: stale after {name}\n{difference(served[role, url][0], page)}"
            )
    # A client holding an ETag from before the change, for content that changed.
    for (role, url), (old_page, old_tag) in before.items():
        if not old_tag or old_page == fresh[role, url]:
            continue
        response = fetch(clients[role], url, etag=old_tag)
        if response.status_code == 304:
            problems.append(f"{role} {url}: a 304 for the ETag from before {name}")
        elif shown(response) != fresh[role, url]:
            problems.append(
                f"{role} {url}: stale for the old ETag after {name}\n"
                + difference(shown(response), fresh[role, url])
            )
    assert not problems, "\n".join(problems)


# --- 4. the standings stay cached through the reports of an open round -------------------

STANDINGS_QUERY = re.compile(r'FROM "tournaments_(match|registration)"(?! U\d)')


def standings_queries(queries) -> list[str]:
    """The queries that compute the standings (the registrations and the results; the
    viewer's own registration, a subquery of the event's query, is not one)."""
    return [query["sql"] for query in queries if STANDINGS_QUERY.search(query["sql"])]


def test_standings_stay_cached_through_reports_in_an_open_round(db, monkeypatch):
    w = db
    round_ = round_4(w, report_first=False)
    match = tables(round_)[0]
    player = match.player1.player
    event_pk = w.ids["r3"]
    page = reverse("tournaments:standings", args=[event_pk])
    api = reverse("event-standings", args=[event_pk])
    anonymous, signed_in = Client(), Client()
    signed_in.force_login(player)
    warm = {
        (client, url): shown(fetch(client, url))
        for client in (anonymous, signed_in)
        for url in (page, api)
    }
    number, standings = counters(event_pk)

    match = services.report_result(
        match, actor=player, games=games_for("2-1"), expected_version=match.version
    )
    services.confirm_result(match, actor=match.player2.player, expected_version=match.version)

    assert counters(event_pk) == (number + 2, standings)

    def no_standings(*args, **kwargs):
        raise AssertionError("the standings were computed again")

    with monkeypatch.context() as patch:
        patch.setattr(snapshots, "compute_standings", no_standings)
        for client in (anonymous, signed_in):
            for url in (page, api):
                with CaptureQueriesContext(connection) as queries:
                    response = fetch(client, url)
                assert response.status_code == 200
                assert shown(response) == warm[client, url]
                assert not standings_queries(queries.captured_queries), url
    # Anonymous: the event with its revision, and nothing else.
    with CaptureQueriesContext(connection) as queries:
        fetch(anonymous, page)
    assert len(queries.captured_queries) == 1

    # The other tables report too; closing the round then changes the standings, and the
    # next request computes them again (the query check above does see those queries).
    for other in tables(round_)[1:]:
        other = services.report_result(
            other,
            actor=other.player1.player,
            games=games_for("2-0"),
            expected_version=other.version,
        )
        services.confirm_result(other, actor=other.player2.player, expected_version=other.version)
    assert counters(event_pk)[1] == standings
    services.close_round(round_, actor=w.organizer)
    assert counters(event_pk)[1] == standings + 1
    with CaptureQueriesContext(connection) as queries:
        response = fetch(anonymous, page)
    assert response.status_code == 200
    assert standings_queries(queries.captured_queries)
    assert shown(response) != warm[anonymous, page]
