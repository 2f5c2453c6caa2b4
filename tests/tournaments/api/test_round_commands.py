"""Round endpoints: start the clock, close, re-pair and edit an unpublished round. Each
success goes through the service (exact resulting state and its audit entry); each refusal
answers with the domain code and status and changes nothing."""

import pytest

from tests.tournaments.factories import report_all
from tournaments import services
from tournaments.models import AuditEntry, Match, MatchParticipant, Round, RoundStatus

from .helpers import API, error_of, live_round


def only_entry(event, action, obj=None):
    entries = AuditEntry.objects.filter(event=event, action=action)
    [entry] = entries.filter(object_id=obj.pk) if obj is not None else entries
    return entry


def tables_of(round_) -> dict[int, tuple]:
    return {m.table: (m.player1_id, m.player2_id) for m in Match.objects.filter(round=round_)}


def seats_of(round_) -> set[tuple]:
    return set(
        MatchParticipant.objects.filter(round=round_).values_list(
            "match__table", "seat", "registration"
        )
    )


def met_before(event) -> set[frozenset]:
    return {
        frozenset(pair)
        for pair in Match.objects.filter(
            round__event=event, round__status=RoundStatus.CLOSED, player2__isnull=False
        ).values_list("player1", "player2")
    }


@pytest.fixture
def draft_round(event_after_round_3):
    """Round 4 generated, not published (7 players: three tables and a bye)."""
    f = event_after_round_3
    return f, services.generate_round(f.event, actor=f.organizer)


def test_start_clock(event_after_round_3, client_for):
    f = event_after_round_3
    round_, _matches = live_round(f)
    url = f"{API}/{f.event.pk}/rounds/4/start-clock/"
    response = client_for(f.organizer).post(url)
    assert response.status_code == 200
    round_.refresh_from_db()
    assert round_.status == RoundStatus.RUNNING
    assert round_.started_at is not None
    assert response.json()["status"] == "running"
    entry = only_entry(f.event, "round.clock_started", round_)
    assert (entry.actor, entry.object_id, entry.before) == (
        f.organizer,
        round_.pk,
        {"status": "published"},
    )
    again = client_for(f.organizer).post(url)
    assert error_of(again) == (409, "round_not_published")


def test_close_round_needs_every_result(event_after_round_3, co_organizer, client_for):
    f = event_after_round_3
    round_, matches = live_round(f)
    url = f"{API}/{f.event.pk}/rounds/4/close/"
    client = client_for(co_organizer)
    response = client.post(url)
    assert error_of(response) == (409, "results_missing")
    assert response.json()["details"]["tables"] == [m.table for m in matches]
    round_.refresh_from_db()
    assert round_.status == RoundStatus.PUBLISHED
    report_all(round_)
    response = client.post(url)
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["open_match_count"]) == ("closed", 0)
    round_.refresh_from_db()
    assert (round_.status, round_.closed_at is not None) == (RoundStatus.CLOSED, True)
    entry = [
        e for e in AuditEntry.objects.filter(action="round.closed") if e.object_id == round_.pk
    ]
    assert [(e.actor, e.before) for e in entry] == [(co_organizer, {"status": "published"})]
    assert error_of(client.post(url)) == (409, "round_not_open")


def test_repair_after_a_drop(draft_round, client_for):
    f, round_ = draft_round
    gone = f.registrations[0]
    services.drop_player(gone, actor=f.players[0])
    before = tables_of(round_)
    url = f"{API}/{f.event.pk}/rounds/4/repair/"
    response = client_for(f.organizer).post(url, {"reason": "a drop"}, format="json")
    assert response.status_code == 200
    assert (response.json()["match_count"], response.json()["status"]) == (3, "draft")
    round_.refresh_from_db()
    assert round_.pairing_attempt == 1
    after = tables_of(round_)
    paired = {p for pair in after.values() for p in pair}
    active = {r.pk for r in f.registrations[1:7]}
    assert paired == active  # six players: three tables, no bye, the dropped one gone
    assert len(after) == 3
    entry = only_entry(f.event, "round.repaired")
    assert (entry.actor, entry.reason) == (f.organizer, "a drop")
    assert entry.before["tables"] == {str(t): list(pair) for t, pair in before.items()}
    assert entry.after["tables"] == {str(t): list(pair) for t, pair in after.items()}


def test_repair_refused_once_published(event_after_round_3, client_for):
    f = event_after_round_3
    round_, _matches = live_round(f)
    before = tables_of(round_)
    url = f"{API}/{f.event.pk}/rounds/4/repair/"
    response = client_for(f.organizer).post(url, {}, format="json")
    assert error_of(response) == (409, "round_not_draft")
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.repaired").exists()


def swap(tables, met, want_rematch):
    """Two tables with their second players swapped, making a rematch or not."""
    full = sorted(t for t, (_p1, p2) in tables.items() if p2 is not None)
    for first in full:
        for second in full:
            if second <= first:
                continue
            (a, b), (c, d) = tables[first], tables[second]
            rematch = frozenset((a, d)) in met or frozenset((c, b)) in met
            if rematch == want_rematch:
                return {first: [a, d], second: [c, b]}
    raise AssertionError("no such swap in this round")


def test_edit_pairing_swaps_two_tables(draft_round, client_for):
    f, round_ = draft_round
    before = tables_of(round_)
    edit = swap(before, met_before(f.event), want_rematch=False)
    payload = {"tables": {str(t): pair for t, pair in edit.items()}, "reason": "friends"}
    url = f"{API}/{f.event.pk}/rounds/4/edit-pairing/"
    response = client_for(f.organizer).post(url, payload, format="json")
    assert response.status_code == 200
    assert response.json()["match_count"] == 4
    expected = {**before, **{t: tuple(pair) for t, pair in edit.items()}}
    assert tables_of(round_) == expected
    assert seats_of(round_) == {
        (table, seat, player)
        for table, pair in expected.items()
        for seat, player in ((1, pair[0]), (2, pair[1]))
        if player is not None
    }
    entry = only_entry(f.event, "round.pairing_edited")
    assert (entry.actor, entry.reason) == (f.organizer, "friends")
    assert entry.before == {"tables": {str(t): list(before[t]) for t in sorted(edit)}}
    assert entry.after == {
        "tables": {str(t): pair for t, pair in sorted(edit.items())},
        "rematches_allowed": [],
    }


def test_edit_pairing_rematch_needs_allowing(draft_round, client_for):
    f, round_ = draft_round
    before = tables_of(round_)
    edit = swap(before, met_before(f.event), want_rematch=True)
    payload = {"tables": {str(t): pair for t, pair in edit.items()}, "reason": "asked"}
    url = f"{API}/{f.event.pk}/rounds/4/edit-pairing/"
    client = client_for(f.organizer)
    refused = client.post(url, payload, format="json")
    assert error_of(refused) == (400, "rematch")
    rematches = refused.json()["details"]["pairs"]
    assert rematches
    assert all(frozenset(p) in met_before(f.event) for p in rematches)
    assert tables_of(round_) == before
    allowed = client.post(url, {**payload, "allow_rematch": True}, format="json")
    assert allowed.status_code == 200
    entry = only_entry(f.event, "round.pairing_edited")
    assert entry.after["rematches_allowed"] == rematches


def test_edit_pairing_refusals(draft_round, client_for):
    f, round_ = draft_round
    before = tables_of(round_)
    (a, b), (c, _d) = before[1], before[2]
    url = f"{API}/{f.event.pk}/rounds/4/edit-pairing/"
    client = client_for(f.organizer)
    cases = [
        ({"tables": {"1": [b, a]}, "reason": ""}, 400, "reason_required"),
        ({"tables": {"1": [a, c]}, "reason": "x"}, 400, "double_booked"),
        ({"tables": {"1": None}, "reason": "x"}, 400, "player_unpaired"),
        ({"tables": {"1": [a, f.dropped.pk]}, "reason": "x"}, 400, "player_not_active"),
        ({"tables": {"1": [None, a]}, "reason": "x"}, 400, "invalid_pairing"),
        ({"tables": {"0": [a, b]}, "reason": "x"}, 400, "invalid_pairing"),
    ]
    for payload, status, code in cases:
        assert error_of(client.post(url, payload, format="json")) == (status, code), payload
    for tables in ({"one": [a, b]}, {"1": [a]}, {}, {"1": [a, b, c]}):
        response = client.post(url, {"tables": tables, "reason": "x"}, format="json")
        assert error_of(response) == (400, "invalid_input"), tables
        assert set(response.json()["details"]["fields"]) == {"tables"}
    assert tables_of(round_) == before
    services.publish_round(round_, actor=f.organizer)
    published = client.post(url, {"tables": {"1": [b, a]}, "reason": "x"}, format="json")
    assert error_of(published) == (409, "round_not_draft")
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()


def test_round_commands_on_an_unknown_round(event_after_round_3, client_for):
    f = event_after_round_3
    for action in ("start-clock", "close", "repair", "edit-pairing"):
        response = client_for(f.organizer).post(f"{API}/{f.event.pk}/rounds/9/{action}/")
        assert error_of(response) == (404, "not_found"), action
    assert Round.objects.filter(event=f.event).count() == 3
