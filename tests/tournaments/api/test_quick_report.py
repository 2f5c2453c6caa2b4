"""The report action with a record from the reporter's own side (one tap), the dispute with
the disputer's own record, and the schema that documents both."""

import pytest

from tests.tournaments.factories import games_for
from tournaments.models import AuditEntry, Match, MatchStatus, ResultReport

from .helpers import API, error_of, live_round


@pytest.fixture
def match_url(event_after_round_3):
    f = event_after_round_3
    _round, matches = live_round(f)
    match = matches[0]
    return f, match, f"{API}/{f.event.pk}/matches/{match.pk}/"


def test_player_2_reports_a_record_from_their_side(match_url, client_for):
    _f, match, url = match_url
    response = client_for(match.player2.player).post(
        url + "report/", {"record": "2-1", "expected_version": match.version}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    # Player 2 won 2-1: the match reads 1-2 from player 1's side.
    assert (body["status"], body["record"], body["outcome"], body["version"]) == (
        "reported",
        "1-2-0",
        "player2",
        match.version + 1,
    )
    assert body["reported_by"] == match.player2_id
    assert AuditEntry.objects.filter(action="match.reported", object_id=match.pk).count() == 1
    confirmed = client_for(match.player1.player).post(
        url + "confirm/", {"expected_version": body["version"]}, format="json"
    )
    assert (confirmed.json()["status"], confirmed.json()["record"]) == ("confirmed", "1-2-0")


def test_report_with_games_and_a_record_is_refused(match_url, client_for):
    _f, match, url = match_url
    client = client_for(match.player1.player)
    both = client.post(
        url + "report/",
        {"record": "2-0", "games": games_for("2-0"), "expected_version": match.version},
        format="json",
    )
    assert error_of(both) == (400, "games_or_record")
    neither = client.post(url + "report/", {"expected_version": match.version}, format="json")
    assert error_of(neither) == (400, "games_or_record")
    impossible = client.post(
        url + "report/", {"record": "3-0", "expected_version": match.version}, format="json"
    )
    assert error_of(impossible) == (400, "invalid_result")
    assert impossible.json()["details"]["engine_code"] == "game_after_decided"
    assert Match.objects.get(pk=match.pk).version == match.version


def test_report_a_record_with_a_stale_version(match_url, client_for):
    _f, match, url = match_url
    client = client_for(match.player1.player)
    stale = client.post(
        url + "report/", {"record": "2-0", "expected_version": match.version + 1}, format="json"
    )
    assert error_of(stale) == (409, "stale_version")


def test_outsiders_cannot_report_a_record(match_url, client_for, outsider):
    f, match, url = match_url
    other = next(
        p for p in f.players if p.pk not in (match.player1.player_id, match.player2.player_id)
    )
    payload = {"record": "2-0", "expected_version": match.version}
    assert error_of(client_for(outsider).post(url + "report/", payload, format="json")) == (
        403,
        "not_participant",
    )
    assert error_of(client_for(other).post(url + "report/", payload, format="json")) == (
        403,
        "not_participant",
    )
    anonymous = client_for().post(url + "report/", payload, format="json")
    assert anonymous.status_code == 403
    assert Match.objects.get(pk=match.pk).status == MatchStatus.PENDING


def test_dispute_with_the_disputers_record(match_url, client_for):
    _f, match, url = match_url
    client_for(match.player1.player).post(
        url + "report/", {"record": "2-0", "expected_version": match.version}, format="json"
    )
    disputed = client_for(match.player2.player).post(
        url + "dispute/",
        {"record": "2-1", "reason": "I won", "expected_version": match.version + 1},
        format="json",
    )
    assert disputed.json()["status"] == "disputed"
    assert ResultReport.objects.get(match=match, kind="dispute").record == "1-2-0"


def test_schema_documents_games_and_record(client, db):
    schema = client.get("/api/schema/?format=json").json()
    report = schema["components"]["schemas"]["ReportInput"]
    assert {"games", "record", "expected_version"} <= set(report["properties"])
    assert report["required"] == ["expected_version"]
    assert "own" in report["properties"]["record"]["description"]
    dispute = schema["components"]["schemas"]["DisputeInput"]
    assert "record" in dispute["properties"]
