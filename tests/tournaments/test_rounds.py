"""tournaments.services.rounds and topcut: pairing with the engine, review and edits,
re-pairing, publishing, the clock, closing, the top cut and the end of the event."""

import pytest

from tournaments import services
from tournaments.models import (
    AuditEntry,
    Event,
    EventState,
    Match,
    MatchParticipant,
    MatchStatus,
    Round,
    RoundStage,
    RoundStatus,
)

from .factories import open_event, play_round, play_top_cut_round, register_all, report_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def running(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=3, top_cut_size=4)
    registrations = register_all(event, make_players(7))
    services.start_event(event, actor=organizer)
    return event, registrations


def tables(round_):
    return {
        table: (p1, p2)
        for table, p1, p2 in Match.objects.filter(round=round_)
        .order_by("table")
        .values_list("table", "player1_id", "player2_id")
    }


def test_generate_round_pairs_everyone_once_with_one_bye(running, organizer):
    event, registrations = running
    round_ = services.generate_round(event, actor=organizer)
    assert (round_.number, round_.stage, round_.status) == (1, "swiss", "draft")
    paired = tables(round_)
    assert len(paired) == 4
    seats = [p for pair in paired.values() for p in pair if p is not None]
    assert sorted(seats) == sorted(r.pk for r in registrations)
    bye = Match.objects.get(round=round_, player2=None)
    assert bye.table == 4
    assert (bye.status, bye.record_text, bye.outcome) == ("final", "2-0-0", "player1")
    assert MatchParticipant.objects.filter(round=round_).count() == 7
    assert round_.pairing_info["proof"] in ("counting-bound", "blossom")
    [entry] = AuditEntry.objects.filter(action="round.generated")
    assert entry.object_id == round_.pk
    assert entry.after["tables"] == {str(t): list(p) for t, p in paired.items()}


def test_generate_round_is_deterministic_per_event_seed(running, organizer):
    event, _ = running
    first = tables(services.generate_round(event, actor=organizer))
    Round.objects.all().delete()  # only to pair the same round again
    again = tables(services.generate_round(event, actor=organizer))
    assert first == again


def test_generate_round_refuses_while_the_previous_is_open(running, organizer):
    event, _ = running
    services.generate_round(event, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.generate_round(event, actor=organizer)
    assert (raised.value.code, raised.value.details) == ("previous_round_open", {"round": 1})
    assert Round.objects.count() == 1
    assert AuditEntry.objects.filter(action="round.generated").count() == 1


def test_generate_round_avoids_rematches_and_a_second_bye(running, organizer):
    event, _ = running
    for _ in range(3):
        play_round(event, organizer)
    met = set()
    byes = []
    for match in Match.objects.filter(round__event=event):
        if match.player2_id is None:
            byes.append(match.player1_id)
        else:
            pair = frozenset((match.player1_id, match.player2_id))
            assert pair not in met
            met.add(pair)
    assert len(byes) == len(set(byes)) == 3


def test_generate_round_stops_after_the_swiss_rounds(running, organizer):
    event, _ = running
    for _ in range(3):
        play_round(event, organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.generate_round(event, actor=organizer)
    assert raised.value.code == "swiss_complete"


def test_generate_round_needs_a_running_event(organizer, crossover):
    event = open_event(organizer, crossover)
    with pytest.raises(services.InvalidState) as raised:
        services.generate_round(event, actor=organizer)
    assert raised.value.code == "event_not_running"


def test_edit_pairing_swaps_two_players_with_a_reason(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    before = tables(round_)
    (a1, a2), (b1, b2) = before[1], before[2]
    services.edit_pairing(
        round_, actor=organizer, tables={1: (a1, b2), 2: (b1, a2)}, reason="table 1 accessible"
    )
    after = tables(round_)
    assert after[1] == (a1, b2)
    assert after[2] == (b1, a2)
    assert after[3] == before[3]
    assert MatchParticipant.objects.filter(round=round_).count() == 7
    assert set(
        MatchParticipant.objects.filter(match__table=1).values_list("registration", "seat")
    ) == {
        (a1, 1),
        (b2, 2),
    }
    [entry] = AuditEntry.objects.filter(action="round.pairing_edited")
    assert entry.reason == "table 1 accessible"
    assert entry.before == {"tables": {"1": [a1, a2], "2": [b1, b2]}}
    assert entry.after == {"tables": {"1": [a1, b2], "2": [b1, a2]}, "rematches_allowed": []}


def test_edit_pairing_moves_the_bye(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    before = tables(round_)
    (a1, a2), (bye, _none) = before[1], before[4]
    services.edit_pairing(round_, actor=organizer, tables={1: (a1, bye), 4: (a2, None)}, reason="x")
    moved = Match.objects.get(round=round_, table=4)
    assert (moved.player1_id, moved.player2_id, moved.status) == (a2, None, MatchStatus.FINAL)
    table_1 = Match.objects.get(round=round_, table=1)
    assert (table_1.status, table_1.wins) == (MatchStatus.PENDING, None)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda t: {1: (t[1][0], t[2][0])}, "double_booked"),
        (lambda t: {1: (t[1][0], t[1][0])}, "double_booked"),
        (lambda t: {3: None}, "player_unpaired"),
        (lambda t: {1: (t[1][0], None), 5: (t[1][1], None)}, "two_byes"),
        (lambda t: {1: (t[1][0], 999_999)}, "player_not_active"),
        (lambda t: {0: (t[1][0], t[1][1])}, "invalid_pairing"),
        (lambda t: {32_768: (t[1][0], t[1][1]), 1: None}, "invalid_pairing"),
    ],
)
def test_edit_pairing_refusals(running, organizer, change, code):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    before = tables(round_)
    with pytest.raises(services.InvalidInput) as raised:
        services.edit_pairing(round_, actor=organizer, tables=change(before), reason="edit")
    assert raised.value.code == code
    assert tables(round_) == before
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()


def test_edit_pairing_refuses_when_the_tables_changed_since_loaded(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    seen = tables(round_)
    (a1, a2), (b1, b2) = seen[1], seen[2]
    swapped = {1: (a1, b1), 2: (a2, b2)}
    services.edit_pairing(round_, actor=organizer, tables=swapped, reason="first", expected=seen)
    now = tables(round_)
    assert now == {**seen, **swapped}
    with pytest.raises(services.Conflict) as raised:
        services.edit_pairing(
            round_, actor=organizer, tables={1: (a1, b2), 2: (a2, b1)}, reason="x", expected=seen
        )
    assert raised.value.code == "stale_version"
    assert tables(round_) == now
    assert AuditEntry.objects.filter(action="round.pairing_edited").count() == 1


def test_edit_pairing_refuses_rematches_unless_allowed(running, organizer):
    event, _ = running
    first = play_round(event, organizer)
    old = tables(first)
    (a1, a2), (b1, b2) = old[1], old[2]
    round_ = services.generate_round(event, actor=organizer)
    current = tables(round_)
    # Re-create round 1's table 1 and put the rest of the round right.
    placed = {a1, a2}
    rest = [p for pair in current.values() for p in pair if p is not None and p not in placed]
    wanted = {1: (a1, a2), 2: (rest[0], rest[1]), 3: (rest[2], rest[3]), 4: (rest[4], None)}
    with pytest.raises(services.InvalidInput) as raised:
        services.edit_pairing(round_, actor=organizer, tables=wanted, reason="edit")
    assert raised.value.code == "rematch"
    assert [a1, a2] in raised.value.details["pairs"]
    services.edit_pairing(
        round_, actor=organizer, tables=wanted, reason="requested", allow_rematch=True
    )
    entry = AuditEntry.objects.get(action="round.pairing_edited")
    assert [a1, a2] in entry.after["rematches_allowed"]
    assert (b1, b2) == old[2]


def test_edit_pairing_needs_a_reason_and_an_unpublished_round(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    with pytest.raises(services.InvalidInput) as raised:
        services.edit_pairing(round_, actor=organizer, tables={}, reason=" ")
    assert raised.value.code == "reason_required"
    services.publish_round(round_, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.edit_pairing(round_, actor=organizer, tables={}, reason="late change")
    assert raised.value.code == "round_not_draft"


def test_repair_round_leaves_out_a_player_who_dropped(running, organizer):
    event, registrations = running
    round_ = services.generate_round(event, actor=organizer)
    services.drop_player(registrations[0], actor=registrations[0].player)
    assert registrations[0].pk in {p for pair in tables(round_).values() for p in pair}
    round_ = services.repair_round(round_, actor=organizer, reason="a drop")
    paired = {p for pair in tables(round_).values() for p in pair if p is not None}
    assert registrations[0].pk not in paired
    assert len(paired) == 6
    assert Match.objects.filter(round=round_, player2=None).count() == 0
    assert round_.pairing_attempt == 1
    entry = AuditEntry.objects.get(action="round.repaired")
    assert entry.reason == "a drop"
    assert len(entry.before["tables"]) == 4
    assert len(entry.after["tables"]) == 3


def test_repair_round_refused_once_published(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.repair_round(round_, actor=organizer)
    assert raised.value.code == "round_not_draft"


def test_round_publish_start_close(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    round_ = services.publish_round(round_, actor=organizer)
    assert (round_.status, round_.published_at is not None) == ("published", True)
    with pytest.raises(services.InvalidState) as raised:
        services.publish_round(round_, actor=organizer)
    assert raised.value.code == "round_not_draft"
    round_ = services.start_round_clock(round_, actor=organizer)
    assert round_.status == RoundStatus.RUNNING
    assert round_.ends_at(event.round_minutes) - round_.started_at == (
        __import__("datetime").timedelta(minutes=50)
    )
    with pytest.raises(services.InvalidState) as raised:
        services.start_round_clock(round_, actor=organizer)
    assert raised.value.code == "round_not_published"
    with pytest.raises(services.InvalidState) as raised:
        services.close_round(round_, actor=organizer)
    assert raised.value.code == "results_missing"
    assert raised.value.details == {"tables": [1, 2, 3]}
    report_all(round_)
    round_ = services.close_round(round_, actor=organizer)
    assert round_.status == RoundStatus.CLOSED
    with pytest.raises(services.InvalidState) as raised:
        services.close_round(round_, actor=organizer)
    assert raised.value.code == "round_not_open"
    assert list(
        AuditEntry.objects.filter(object_type="round")
        .order_by("id")
        .values_list("action", flat=True)
    ) == ["round.generated", "round.published", "round.clock_started", "round.closed"]


def test_close_round_refuses_a_draft(running, organizer):
    event, _ = running
    round_ = services.generate_round(event, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.close_round(round_, actor=organizer)
    assert raised.value.code == "round_not_open"


def test_top_cut_from_standings_to_the_final(running, organizer):
    event, _registrations = running
    for _ in range(3):
        play_round(event, organizer)
    standings = services.compute_standings(event)
    top = [line.registration.pk for line in standings.rows[:4]]
    semis = services.generate_top_cut(event, actor=organizer)
    assert Event.objects.get().state == EventState.TOP_CUT
    assert (semis.number, semis.stage, semis.status) == (4, RoundStage.TOP_CUT, "draft")
    seeded = list(
        Match.objects.filter(round=semis)
        .order_by("table")
        .values_list("bracket_position", "seed1", "seed2", "player1_id", "player2_id")
    )
    assert seeded == [(0, 1, 4, top[0], top[3]), (1, 2, 3, top[1], top[2])]
    with pytest.raises(services.InvalidState) as raised:
        services.advance_bracket(event, actor=organizer)
    assert raised.value.code == "previous_round_open"
    play_top_cut_round(semis, organizer)  # player 1 (the better seed) wins every match
    final = services.advance_bracket(event, actor=organizer)
    assert tables(final) == {1: (top[0], top[1])}
    assert Match.objects.get(round=final).seed1 == 1
    play_top_cut_round(final, organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.advance_bracket(event, actor=organizer)
    assert raised.value.code == "bracket_complete"
    services.finish_event(event, actor=organizer)
    assert Event.objects.get().state == EventState.FINISHED
    assert AuditEntry.objects.filter(action="event.top_cut_generated").count() == 1
    assert AuditEntry.objects.filter(action="round.bracket_advanced").count() == 1


def test_top_cut_leaves_out_dropped_players(running, organizer):
    event, _registrations = running
    for _ in range(3):
        play_round(event, organizer)
    leader = services.compute_standings(event).rows[0].registration
    services.drop_player(leader, actor=leader.player)
    semis = services.generate_top_cut(event, actor=organizer)
    assert not Match.objects.filter(round=semis, participants__registration=leader).exists()


def test_top_cut_refusals(running, organizer, crossover, make_players):
    event, _ = running
    play_round(event, organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.generate_top_cut(event, actor=organizer)
    assert (raised.value.code, raised.value.details) == ("swiss_not_complete", {"played": 1})
    without = open_event(organizer, crossover, name="No cut", swiss_rounds=1)
    register_all(without, make_players(2, prefix="nocut"))
    services.start_event(without, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.generate_top_cut(without, actor=organizer)
    assert raised.value.code == "no_top_cut"
    with pytest.raises(services.InvalidState) as raised:
        services.advance_bracket(event, actor=organizer)
    assert raised.value.code == "event_not_in_top_cut"
    assert Round.objects.filter(stage=RoundStage.TOP_CUT).count() == 0
