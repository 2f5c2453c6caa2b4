"""Command endpoints: each happy path goes through the service (and its audit entry); each
command's main refusal answers with the domain code and status."""

import pytest

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import games_for, open_event
from tournaments import services
from tournaments.models import AuditEntry, MatchStatus, Penalty, Round

from .helpers import API, api_time, error_of, live_round

ILLEGAL_DECK = "4 森原 さとみ\n"


@pytest.fixture
def open_spring(organizer, crossover):
    return open_event(organizer, crossover, capacity=2)


def test_register_with_deck_and_refusals(open_spring, client_for, make_players):
    first, second, third = make_players(3)
    url = f"{API}/{open_spring.pk}/register/"
    response = client_for(first).post(url, {"deck_text": LEGAL_DECK}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["player"], body["status"], body["has_decklist"]) == (
        "player001",
        "registered",
        True,
    )
    assert AuditEntry.objects.filter(action="registration.created", object_id=body["id"]).exists()

    assert error_of(client_for(first).post(url, {}, format="json")) == (409, "already_registered")

    illegal = client_for(second).post(url, {"deck_text": ILLEGAL_DECK}, format="json")
    assert error_of(illegal) == (400, "deck_illegal")
    details = illegal.json()["details"]
    assert details["violations"]
    assert details["report"]["legal"] is False
    assert details["report"]["violations"]

    assert client_for(second).post(url, {}, format="json").status_code == 201
    full = client_for(third).post(url, {"join_waitlist": False}, format="json")
    assert error_of(full) == (409, "capacity_full")
    waitlisted = client_for(third).post(url, {}, format="json").json()
    assert waitlisted["status"] == "waitlisted"


def test_decklist_submit_and_locked(open_spring, client_for, make_players, organizer):
    (player,) = make_players(1)
    registration = services.register_player(open_spring, actor=player)
    url = f"{API}/{open_spring.pk}/registrations/{registration.pk}/decklist/"
    ok = client_for(player).post(url, {"deck_text": LEGAL_DECK}, format="json")
    assert ok.status_code == 200
    assert ok.json()["has_decklist"] is True
    bad = client_for(player).post(url, {"deck_text": ILLEGAL_DECK}, format="json")
    assert error_of(bad) == (400, "deck_illegal")
    missing = client_for(player).post(url, {}, format="json")
    assert error_of(missing) == (400, "invalid_input")
    assert "deck_text" in missing.json()["details"]["fields"]


def test_decklist_locked_after_start(event_after_round_3, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/registrations/{f.registrations[0].pk}/decklist/"
    response = client_for(f.players[0]).post(url, {"deck_text": LEGAL_DECK}, format="json")
    assert error_of(response) == (409, "decklist_locked")


def test_drop_and_drop_again(event_after_round_3, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/registrations/{f.registrations[1].pk}/drop/"
    response = client_for(f.players[1]).post(url, {"reason": "tired"}, format="json")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["dropped_after_round"]) == ("dropped", 3)
    assert error_of(client_for(f.players[1]).post(url, {}, format="json")) == (409, "not_active")


def test_report_confirm_and_stale(event_after_round_3, client_for):
    f = event_after_round_3
    _round, matches = live_round(f)
    match = matches[0]
    url = f"{API}/{f.event.pk}/matches/{match.pk}/"
    reporter, opponent = client_for(match.player1.player), client_for(match.player2.player)
    payload = {"games": games_for("2-1"), "expected_version": match.version}
    reported = reporter.post(url + "report/", payload, format="json")
    assert reported.status_code == 200
    body = reported.json()
    assert (body["status"], body["record"], body["version"]) == ("reported", "2-1-0", 2)
    assert body["reported_by"] == match.player1_id

    stale = opponent.post(url + "confirm/", {"expected_version": 1}, format="json")
    assert error_of(stale) == (409, "stale_version")
    own = reporter.post(url + "confirm/", {"expected_version": 2}, format="json")
    assert error_of(own) == (403, "own_report")
    confirmed = opponent.post(url + "confirm/", {"expected_version": 2}, format="json")
    assert (confirmed.json()["status"], confirmed.json()["version"]) == ("confirmed", 3)
    again = reporter.post(url + "report/", {**payload, "expected_version": 3}, format="json")
    assert error_of(again) == (409, "result_final")


def test_report_input_errors(event_after_round_3, client_for):
    f = event_after_round_3
    _round, matches = live_round(f)
    url = f"{API}/{f.event.pk}/matches/{matches[0].pk}/report/"
    client = client_for(matches[0].player1.player)
    no_version = client.post(url, {"games": games_for("2-0")}, format="json")
    assert error_of(no_version) == (400, "invalid_input")
    assert "expected_version" in no_version.json()["details"]["fields"]
    nonsense = client.post(url, {"games": [{"end": "??"}], "expected_version": 1}, format="json")
    assert nonsense.status_code == 400
    assert error_of(nonsense)[1] in ("games_malformed", "invalid_result")


def test_dispute_then_override(event_after_round_3, client_for):
    f = event_after_round_3
    _round, matches = live_round(f)
    match = matches[1]
    url = f"{API}/{f.event.pk}/matches/{match.pk}/"
    services.report_result(
        match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
    )
    opponent = client_for(match.player2.player)
    no_reason = opponent.post(
        url + "dispute/", {"expected_version": 2, "reason": ""}, format="json"
    )
    assert error_of(no_reason) == (400, "reason_required")
    disputed = opponent.post(
        url + "dispute/", {"expected_version": 2, "reason": "I won game 2"}, format="json"
    )
    assert disputed.json()["status"] == MatchStatus.DISPUTED

    judge = client_for(f.judge)
    both = judge.post(
        url + "override/",
        {"expected_version": 3, "reason": "x", "record": "1-1-1", "games": games_for("2-0")},
        format="json",
    )
    assert error_of(both) == (400, "games_or_record")
    overridden = judge.post(
        url + "override/",
        {"expected_version": 3, "reason": "judge call", "record": "1-1-1"},
        format="json",
    )
    body = overridden.json()
    assert (body["status"], body["record"], body["version"]) == ("final", "1-1-1", 4)
    assert AuditEntry.objects.filter(action="match.overridden", object_id=match.pk).count() == 1


def test_penalty(event_after_round_3, client_for):
    f = event_after_round_3
    _round, matches = live_round(f)
    registration = matches[0].player1
    url = f"{API}/{f.event.pk}/registrations/{registration.pk}/penalty/"
    judge = client_for(f.judge)
    warning = judge.post(url, {"kind": "warning", "infraction": "Slow play"}, format="json")
    assert warning.status_code == 201
    penalty = Penalty.objects.latest("id")
    assert warning.json() == {
        "id": penalty.pk,
        "registration": registration.pk,
        "player": registration.player.username,
        "kind": "warning",
        "infraction": "Slow play",
        "infraction_code": None,
        "suggested_kind": "",
        "note": "",
        "round": None,
        "match": None,
        "judge": "judge",
        "created_at": api_time(penalty.created_at),
    }
    no_match = judge.post(url, {"kind": "game_loss", "infraction": "Marked cards"}, format="json")
    assert error_of(no_match) == (400, "match_required")
    foreign = judge.post(
        url, {"kind": "game_loss", "infraction": "Marked cards", "match": 10**9}, format="json"
    )
    assert error_of(foreign) == (400, "match_not_found")
    loss = judge.post(
        url,
        {"kind": "game_loss", "infraction": "Marked cards", "match": matches[0].pk},
        format="json",
    )
    assert loss.status_code == 201
    assert loss.json()["round"] == 4


def test_generate_and_publish_round(event_after_round_3, client_for):
    f = event_after_round_3
    organizer = client_for(f.organizer)
    generated = organizer.post(f"{API}/{f.event.pk}/generate-round/")
    assert generated.status_code == 201
    assert generated.json() == {
        "number": 4,
        "stage": "swiss",
        "status": "draft",
        "match_count": 4,
        "open_match_count": 3,  # the bye is final already
        "published_at": None,
        "started_at": None,
        "closed_at": None,
    }
    again = organizer.post(f"{API}/{f.event.pk}/generate-round/")
    assert error_of(again) == (409, "previous_round_open")
    assert again.json()["details"] == {"round": 4}

    publish = f"{API}/{f.event.pk}/rounds/4/publish/"
    published = organizer.post(publish)
    assert published.status_code == 200
    assert published.json()["status"] == "published"
    assert Round.objects.get(event=f.event, number=4).status == "published"
    assert error_of(organizer.post(publish)) == (409, "round_not_draft")


def test_judge_cannot_run_rounds(event_after_round_3, client_for):
    f = event_after_round_3
    response = client_for(f.judge).post(f"{API}/{f.event.pk}/generate-round/")
    assert error_of(response) == (403, "not_manager")
