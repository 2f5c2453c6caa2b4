"""The paginated, cached standings and pairings answers of the API (issue 10): the page
shape with exact values, ``page`` and ``page_size`` (1 to 1,000, default 200, or
``all``), the 404s, strong ETags and 304s, what changes the tags, the number of queries
for a small and a large event, and drafts.

The large event is ``played_event`` (600 players after 3 closed Swiss rounds, the last
player dropped before round 3): 300 tables in each round, a bye at table 300 of round 3.
"""

from __future__ import annotations

import gzip
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from tests.tournaments.factories import games_for, new_event
from tournaments import services, snapshots
from tournaments.models import Match

from .bulk import played_event
from .helpers import API, live_round

pytestmark = pytest.mark.django_db

PLAYERS = 600
SERVER = "http://testserver"
NOT_FOUND = {"code": "not_found", "message": "Invalid page.", "details": {}}
TIEBREAK_NAMES = ["opponents_match_win_pct", "game_win_pct", "opponents_game_win_pct"]


@pytest.fixture
def big(organizer, crossover):
    return played_event(organizer, crossover, players=PLAYERS, name="Big Open")


@pytest.fixture
def small(organizer, crossover):
    return played_event(organizer, crossover, players=10, name="Small Open")


def standings_path(event) -> str:
    return f"{API}/{event.pk}/standings/"


def pairings_path(event, number: int) -> str:
    return f"{API}/{event.pk}/rounds/{number}/pairings/"


def ok(response) -> dict:
    assert response.status_code == 200, (response.status_code, response.content[:300])
    return response.json()


def standing_rows(event) -> list[dict]:
    table = services.compute_standings(event)
    return [
        {
            "placing": line.placing,
            "top_cut_result": line.top_cut_result,
            "rank": line.rank,
            "registration": line.registration.pk,
            "name": line.registration.player.username,
            "match_points": line.match_points,
            "wins": line.wins,
            "losses": line.losses,
            "draws": line.draws,
            "byes": line.byes,
            "dropped": line.dropped,
            "missed_rounds": line.missed_rounds,
            "tiebreakers": {name: float(line.tiebreakers[name]) for name in table.tiebreak_names},
        }
        for line in table.rows
    ]


def match_row(match: Match) -> dict:
    def seat(registration):
        if registration is None:
            return None
        return {"registration": registration.pk, "name": registration.player.username}

    return {
        "id": match.pk,
        "round": match.round.number,
        "table": match.table,
        "player1": seat(match.player1),
        "player2": seat(match.player2),
        "status": match.status,
        "outcome": match.outcome,
        "record": match.record_text,
        "games": match.games,
        "reported_by": match.reported_by_id,
        "version": match.version,
    }


def match_rows(event, number: int) -> list[dict]:
    matches = (
        Match.objects.filter(round__event=event, round__number=number)
        .select_related("round", "player1__player", "player2__player")
        .order_by("table")
    )
    return [match_row(match) for match in matches]


# --- standings -----------------------------------------------------------------------------


def test_standings_pages_exact(big, client_for):
    expected = standing_rows(big)
    client = client_for()
    url = SERVER + standings_path(big)
    first = ok(client.get(standings_path(big)))
    assert first == {
        "count": PLAYERS,
        "next": f"{url}?page=2&page_size=200",
        "previous": None,
        "profile": "mtr",
        "tiebreak_names": TIEBREAK_NAMES,
        "rounds": 3,
        "top_cut": None,
        "rows": expected[:200],
    }
    assert ok(client.get(standings_path(big), {"page": 2})) == {
        **first,
        "next": f"{url}?page=3&page_size=200",
        "previous": f"{url}?page=1&page_size=200",
        "rows": expected[200:400],
    }
    assert ok(client.get(standings_path(big), {"page": 3})) == {
        **first,
        "next": None,
        "previous": f"{url}?page=2&page_size=200",
        "rows": expected[400:600],
    }
    # Without a top cut the placings are the Swiss ranks.
    assert all(row["placing"] == row["rank"] for row in expected)
    # The dropped player keeps a row.
    assert [row["registration"] for row in expected if row["dropped"]] == [
        big.registrations.order_by("-pk").first().pk
    ]


def test_standings_page_size(big, client_for):
    expected = standing_rows(big)
    client = client_for()
    url = SERVER + standings_path(big)
    every = ok(client.get(standings_path(big), {"page_size": "all"}))
    assert (every["count"], every["next"], every["previous"]) == (PLAYERS, None, None)
    assert every["rows"] == expected
    five = ok(client.get(standings_path(big), {"page": 2, "page_size": 5}))
    assert five == {
        "count": PLAYERS,
        "next": f"{url}?page=3&page_size=5",
        "previous": f"{url}?page=1&page_size=5",
        "profile": "mtr",
        "tiebreak_names": TIEBREAK_NAMES,
        "rounds": 3,
        "top_cut": None,
        "rows": expected[5:10],
    }
    last_of_five = ok(client.get(standings_path(big), {"page": 120, "page_size": 5}))
    assert (last_of_five["next"], last_of_five["rows"]) == (None, expected[595:600])
    thousand = ok(client.get(standings_path(big), {"page_size": 1000}))
    assert (thousand["next"], thousand["rows"]) == (None, expected)
    # A size out of bounds or not a number: the default of 200.
    for size in ("0", "1001", "-5", "abc", "", "２", "ALL"):
        body = ok(client.get(standings_path(big), {"page_size": size}))
        assert body["rows"] == expected[:200], size
        assert body["next"] == f"{url}?page=2&page_size=200", size


def test_standings_bad_pages_are_404(big, client_for):
    client = client_for()
    for params in (
        {"page": 4},
        {"page": 121, "page_size": 5},
        {"page": 2, "page_size": "all"},
        {"page": 2, "page_size": 1000},
        {"page": "abc"},
        {"page": "0"},
        {"page": "-1"},
        {"page": "1.5"},
        {"page": "２"},  # a full-width digit
    ):
        response = client.get(standings_path(big), params)
        assert response.status_code == 404, params
        assert response.json() == NOT_FOUND, params
    # The same shape as any other list of the API past its end.
    events = client.get(f"{API}/", {"page": 9})
    assert (events.status_code, events.json()) == (404, NOT_FOUND)


def test_standings_before_any_round(organizer, crossover, client_for):
    event = played_event(organizer, crossover, players=4, rounds=0, name="Not yet")
    body = ok(client_for().get(standings_path(event)))
    assert (body["count"], body["next"], body["previous"], body["rounds"]) == (4, None, None, 0)
    assert all(row["match_points"] == 0 for row in body["rows"])


# --- pairings ------------------------------------------------------------------------------


def test_pairings_pages_exact(big, client_for):
    client = client_for()
    url = SERVER + pairings_path(big, 3)
    expected = match_rows(big, 3)
    assert len(expected) == 300
    first = ok(client.get(pairings_path(big, 3)))
    assert first == {
        "count": 300,
        "next": f"{url}?page=2&page_size=200",
        "previous": None,
        "results": expected[:200],
    }
    second = ok(client.get(pairings_path(big, 3), {"page": 2}))
    assert second == {
        "count": 300,
        "next": None,
        "previous": f"{url}?page=1&page_size=200",
        "results": expected[200:],
    }
    bye = second["results"][-1]
    assert (bye["table"], bye["player2"], bye["status"]) == (300, None, "final")
    every = ok(client.get(pairings_path(big, 3), {"page_size": "all"}))
    assert (every["count"], every["next"], every["previous"]) == (300, None, None)
    assert every["results"] == expected
    seven = ok(client.get(pairings_path(big, 1), {"page": 3, "page_size": 7}))
    assert seven == {
        "count": 300,
        "next": f"{SERVER}{pairings_path(big, 1)}?page=4&page_size=7",
        "previous": f"{SERVER}{pairings_path(big, 1)}?page=2&page_size=7",
        "results": match_rows(big, 1)[14:21],
    }
    default = ok(client.get(pairings_path(big, 3), {"page_size": "5000"}))
    assert default["results"] == expected[:200]
    for params in ({"page": 3}, {"page": "x"}, {"page": 2, "page_size": "all"}):
        response = client.get(pairings_path(big, 3), params)
        assert (response.status_code, response.json()) == (404, NOT_FOUND), params
    missing = client.get(pairings_path(big, 9))
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


# --- ETags ---------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["standings", "pairings"])
def test_strong_etag_and_304(which, big, client_for):
    path = standings_path(big) if which == "standings" else pairings_path(big, 2)
    client = client_for()
    first = client.get(path)
    tag = first["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', tag)  # strong: no W/
    assert first["Cache-Control"] == "private, no-cache"
    assert first["Content-Type"] == "application/json"
    assert "Accept-Encoding" in first["Vary"]
    again = client.get(path, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == tag
    assert again["Cache-Control"] == "private, no-cache"
    # The same bytes every time, for another client too.
    other = client_for()
    assert other.get(path).content == first.content
    assert other.get(path, HTTP_IF_NONE_MATCH=tag).status_code == 304
    # Each page and size is its own representation.
    assert client.get(path, {"page": 2}, HTTP_IF_NONE_MATCH=tag).status_code == 200
    assert client.get(path, {"page_size": 5}, HTTP_IF_NONE_MATCH=tag).status_code == 200
    # Gzip: its own tag, the same JSON.
    packed = client.get(path, HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert packed["ETag"] != tag
    assert re.fullmatch(r'"[0-9a-f]{32}"', packed["ETag"])
    assert gzip.decompress(packed.content) == first.content
    assert (
        client.get(path, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=packed["ETag"]).status_code
        == 304
    )
    # A weak form of the tag matches too (weak comparison of If-None-Match).
    assert client.get(path, HTTP_IF_NONE_MATCH=f"W/{tag}").status_code == 304


def test_confirmed_result_changes_the_pairings_tag_not_the_standings_tag(
    event_after_round_3, client_for
):
    f = event_after_round_3
    round_, matches = live_round(f)
    client = client_for()
    standings = client.get(standings_path(f.event))
    pairings = client.get(pairings_path(f.event, round_.number))
    assert ok(pairings)["results"][0]["status"] == "pending"
    match = matches[0]
    reported = services.report_result(
        match, actor=match.player1.player, games=games_for("2-1"), expected_version=match.version
    )
    services.confirm_result(reported, actor=match.player2.player, expected_version=reported.version)
    # The standings count closed rounds only: same tag, a 304, the same bytes.
    assert (
        client.get(standings_path(f.event), HTTP_IF_NONE_MATCH=standings["ETag"]).status_code == 304
    )
    unchanged = client.get(standings_path(f.event))
    assert (unchanged["ETag"], unchanged.content) == (standings["ETag"], standings.content)
    # The round's pairings show the result under a new tag.
    fresh = client.get(pairings_path(f.event, round_.number), HTTP_IF_NONE_MATCH=pairings["ETag"])
    assert fresh.status_code == 200
    assert fresh["ETag"] != pairings["ETag"]
    row = next(row for row in ok(fresh)["results"] if row["id"] == match.pk)
    assert (row["status"], row["record"], row["outcome"]) == ("confirmed", "2-1-0", "player1")
    # Closing the round moves the standings on.
    for other in matches[1:]:
        other = services.report_result(
            other,
            actor=other.player1.player,
            games=games_for("2-0"),
            expected_version=other.version,
        )
        services.confirm_result(other, actor=other.player2.player, expected_version=other.version)
    services.close_round(round_, actor=f.organizer)
    after = client.get(standings_path(f.event), HTTP_IF_NONE_MATCH=standings["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != standings["ETag"]
    assert ok(after)["rounds"] == 4


# --- queries -------------------------------------------------------------------------------

QUERIES = {
    "standings": lambda event: standings_path(event),
    "standings-all": lambda event: standings_path(event) + "?page_size=all",
    "pairings": lambda event: pairings_path(event, 3),
    "pairings-page-2": lambda event: pairings_path(event, 3) + "?page=2&page_size=2",
}
# The most queries the first request after a change may add to the warm ones (the
# standings: registrations and results; the pairings: the count and the page's matches).
MOST_COLD = 3


@pytest.mark.parametrize("what", list(QUERIES))
def test_queries_same_for_small_and_large_cold_and_warm(
    what, small, big, client_for, organizer, django_assert_num_queries
):
    for user in (None, organizer):
        viewer = 0 if user is None else 2  # the session and the user
        counts = []
        for event in (small, big):
            client, other = client_for(user), client_for(user)
            path = QUERIES[what](event)
            cache.clear()  # cold: as after a change
            snapshots.forget_engine_standings()  # and this process's memo
            with CaptureQueriesContext(connection) as cold:
                assert client.get(path).status_code == 200
            with CaptureQueriesContext(connection) as warm:
                tagged = client.get(path)
            assert tagged.status_code == 200
            # A 304, and another client's first request, cost what a warm request costs.
            with django_assert_num_queries(len(warm)):
                assert client.get(path, HTTP_IF_NONE_MATCH=tagged["ETag"]).status_code == 304
            with django_assert_num_queries(len(warm)):
                assert other.get(path).status_code == 200
            counts.append((len(cold), len(warm)))
        assert counts[0] == counts[1], (user, counts)
        cold, warm = counts[0]
        if what.startswith("standings"):
            assert warm == viewer + 1  # the event, with its revision and the caller's access
        else:
            assert warm <= viewer + 2  # the event, and at most the round
        assert warm < cold <= warm + MOST_COLD, (user, counts)


# --- drafts --------------------------------------------------------------------------------


def test_draft_event_standings_hidden_from_outsiders(organizer, crossover, outsider, client_for):
    draft = new_event(organizer, crossover, name="Secret League")
    path = standings_path(draft)
    # The organizer's answer is cached first: it must not reach anybody else.
    assert ok(client_for(organizer).get(path)) == {
        "count": 0,
        "next": None,
        "previous": None,
        "profile": "mtr",
        "tiebreak_names": TIEBREAK_NAMES,
        "rounds": 0,
        "top_cut": None,
        "rows": [],
    }
    for user in (None, outsider):
        client = client_for(user)
        for params in ({}, {"page_size": "all"}, {"page": 2}):
            response = client.get(path, params)
            assert response.status_code == 404, (user, params)
            assert response.json() == {"code": "not_found", "message": "not found", "details": {}}


def test_draft_round_pairings_hidden_from_players(event_after_round_3, outsider, client_for):
    f = event_after_round_3
    draft = services.generate_round(f.event, actor=f.organizer)
    path = pairings_path(f.event, draft.number)
    expected = match_rows(f.event, draft.number)
    # The staff's answer is cached first: it must not reach anybody else.
    for staff in (f.judge, f.organizer):
        body = ok(client_for(staff).get(path))
        assert body == {"count": 4, "next": None, "previous": None, "results": expected}
        statuses = [(row["player2"] is None, row["status"]) for row in body["results"]]
        assert statuses == [(False, "pending")] * 3 + [(True, "final")]  # 7 players: a bye
    for user in (None, outsider, f.players[0]):
        client = client_for(user)
        for params in ({}, {"page_size": "all"}, {"page": 2}):
            response = client.get(path, params)
            assert response.status_code == 404, (user, params)
            assert response.json() == {"code": "not_found", "message": "not found", "details": {}}
    # Published: the players see it.
    services.publish_round(draft, actor=f.organizer)
    assert ok(client_for(f.players[0]).get(path))["results"] == match_rows(f.event, draft.number)


@override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}})
def test_pages_past_the_end_leave_nothing_in_the_cache(big, client_for):
    """Made-up page or round numbers cannot fill the cache: only the row count is kept."""
    client = client_for()
    assert client.get(standings_path(big)).status_code == 200
    kept = set(cache._cache)  # the keys of the local-memory cache
    for page in range(50, 80):
        assert client.get(standings_path(big), {"page": page}).status_code == 404
    # nor can made-up round numbers, on the pairings page or answer
    for number in range(40, 50):
        assert client.get(f"{API}/{big.pk}/rounds/{number}/pairings/").status_code == 404
        assert client.get(f"/events/{big.pk}/rounds/{number}/pairings/").status_code == 404
    assert set(cache._cache) == kept
