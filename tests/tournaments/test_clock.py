"""tournaments.services.clock: the time left of a round and of one table (with a frozen
clock), and the time extensions a judge gives a table."""

import datetime as dt
from types import SimpleNamespace

import pytest
from django.utils import translation

from tournaments import services
from tournaments.models import AuditEntry, EventRevision, Match, Round, RoundStatus
from tournaments.services.clock import (
    MAX_EXTENSION_MINUTES,
    clock_state,
    extend_match_time,
    minutes_left_text,
)
from tournaments.services.errors import InvalidInput, InvalidState, NotAllowed

from .factories import open_event, register_all

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 5, 16, 5, 0, tzinfo=dt.UTC)  # 14:00 in Tokyo


# --- time left (pure) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 min"),
        (1, "1 min"),
        (60, "1 min"),
        (61, "2 min"),
        (12 * 60 - 30, "12 min"),
        (59 * 60, "59 min"),
        (59 * 60 + 1, "1:00"),
        (3600, "1:00"),
        (3600 + 5 * 60, "1:05"),
        (2 * 3600 + 59 * 60 + 59, "3:00"),
        (-30, "0 min"),
    ],
)
def test_minutes_left_text_rounds_up_to_whole_minutes(seconds, text):
    with translation.override("en"):
        assert minutes_left_text(seconds) == text


def test_minutes_left_text_in_japanese():
    with translation.override("ja"):
        assert minutes_left_text(12 * 60) in ("12分", "12 min")  # catalogue compiled or not


def a_round(status, started_at=START):
    return Round(number=3, status=status, started_at=started_at)


def test_clock_state_of_a_running_round_with_a_frozen_clock():
    now = START + dt.timedelta(minutes=38, seconds=10)
    state = clock_state(a_round(RoundStatus.RUNNING), 50, now=now)
    assert state.state == "running"
    assert state.ends_at == START + dt.timedelta(minutes=50)
    assert state.seconds_left == 11 * 60 + 50
    assert state.text == "12 min"
    table = clock_state(a_round(RoundStatus.RUNNING), 50, now=now, extra_minutes=5)
    assert table.ends_at == START + dt.timedelta(minutes=55)
    assert table.seconds_left == 16 * 60 + 50
    assert table.text == "17 min"


def test_clock_state_before_the_start_after_the_end_and_closed():
    waiting = clock_state(a_round(RoundStatus.PUBLISHED, None), 50, now=START)
    assert (waiting.state, waiting.ends_at, waiting.seconds_left, waiting.text) == (
        "waiting",
        None,
        None,
        "",
    )
    late = START + dt.timedelta(minutes=51)
    over = clock_state(a_round(RoundStatus.RUNNING), 50, now=late)
    assert (over.state, over.seconds_left, over.text) == ("over", 0, "0 min")
    # The table with 5 more minutes still plays.
    assert clock_state(a_round(RoundStatus.RUNNING), 50, now=late, extra_minutes=5).state == (
        "running"
    )
    closed = clock_state(a_round(RoundStatus.CLOSED), 50, now=late)
    assert (closed.state, closed.seconds_left) == ("closed", None)
    long_round = clock_state(a_round(RoundStatus.RUNNING), 90, now=START)
    assert long_round.text == "1:30"


# --- extensions ----------------------------------------------------------------------------


@pytest.fixture
def running_round(staffed_event, organizer, make_players):
    """Five players (one bye), round 1 published and its clock running."""
    event = staffed_event
    players = make_players(5)
    register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    matches = list(Match.objects.filter(round=round_).order_by("table"))
    return SimpleNamespace(event=event, round=round_, players=players, matches=matches)


def revision(event) -> int:
    return EventRevision.objects.get(event=event).number


def test_judge_extends_a_table_with_a_reason_audited_and_revision_bumped(running_round, judge):
    match = running_round.matches[0]
    before = revision(running_round.event)
    saved = extend_match_time(match, actor=judge, minutes=3, reason="Deck check")
    assert saved.extra_minutes == 3
    match.refresh_from_db()
    assert match.extra_minutes == 3
    [entry] = AuditEntry.objects.filter(action="match.time_extended")
    assert (entry.actor, entry.object_type, entry.object_id) == (judge, "match", match.pk)
    assert entry.reason == "Deck check"
    assert entry.before == {"extra_minutes": 0}
    assert entry.after == {"extra_minutes": 3, "added": 3}
    assert revision(running_round.event) == before + 1
    # Extensions add up.
    extend_match_time(match, actor=judge, minutes=2, reason="Long ruling")
    match.refresh_from_db()
    assert match.extra_minutes == 5
    assert revision(running_round.event) == before + 2
    # Other tables keep the round's time.
    assert Match.objects.get(pk=running_round.matches[1].pk).extra_minutes == 0


@pytest.mark.parametrize("manager", ["organizer", "co_organizer"])
def test_managers_may_extend_too(running_round, request, manager):
    user = request.getfixturevalue(manager)
    match = running_round.matches[0]
    assert extend_match_time(match, actor=user, minutes=1, reason="x").extra_minutes == 1


def test_extension_refused_for_player_and_outsider(running_round, outsider):
    match = running_round.matches[0]
    player = match.player1.player
    for user in (player, outsider):
        with pytest.raises(NotAllowed):
            extend_match_time(match, actor=user, minutes=3, reason="I was slow")
    match.refresh_from_db()
    assert match.extra_minutes == 0
    assert not AuditEntry.objects.filter(action="match.time_extended").exists()


@pytest.mark.parametrize(
    ("minutes", "reason", "code"),
    [
        (3, "  ", "reason_required"),
        (0, "x", "invalid_minutes"),
        (-2, "x", "invalid_minutes"),
        (MAX_EXTENSION_MINUTES + 1, "x", "invalid_minutes"),
        (True, "x", "invalid_minutes"),
        ("3", "x", "invalid_minutes"),
    ],
)
def test_extension_input_refused(running_round, judge, minutes, reason, code):
    match = running_round.matches[0]
    with pytest.raises(InvalidInput) as refused:
        extend_match_time(match, actor=judge, minutes=minutes, reason=reason)
    assert refused.value.code == code
    match.refresh_from_db()
    assert match.extra_minutes == 0


def test_extension_has_a_total_limit(running_round, judge):
    match = running_round.matches[0]
    for _ in range(4):
        extend_match_time(match, actor=judge, minutes=30, reason="x")
    with pytest.raises(InvalidInput) as refused:
        extend_match_time(match, actor=judge, minutes=1, reason="x")
    assert refused.value.code == "too_much_time"
    match.refresh_from_db()
    assert match.extra_minutes == 120


def test_no_extension_for_a_bye_a_draft_or_a_closed_round(
    running_round, judge, organizer, make_players, crossover
):
    bye = next(m for m in running_round.matches if m.player2_id is None)
    with pytest.raises(InvalidInput) as refused:
        extend_match_time(bye, actor=judge, minutes=3, reason="x")
    assert refused.value.code == "bye"
    event = open_event(organizer, crossover, name="Draft round")
    register_all(event, make_players(2, prefix="d"))
    services.start_event(event, actor=organizer)
    draft = services.generate_round(event, actor=organizer)
    with pytest.raises(InvalidState) as refused:
        extend_match_time(draft.matches.get(), actor=organizer, minutes=3, reason="x")
    assert refused.value.code == "round_not_open"
