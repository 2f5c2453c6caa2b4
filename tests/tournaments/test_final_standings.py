"""Final standings after a top cut (issue 11): the standings page, the API and the
exports agree on the order (the champion first, the bracket, then the Swiss standings)
with each player's placing and top-cut result; the champion; the bracket page; a cut in
progress; and the same number of queries as the Swiss standings.

The event: ten players, three Swiss rounds, a top 8 built and played through the
services. Quarterfinals by table (1v8, 4v5, 2v7, 3v6): 8 beats 1, 4 beats 5, 2 beats
7, 6 beats 3; semifinals 4v8 → 8, 2v6 → 2; the final 2v8 → 8. So the 8th seed wins.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.tournaments.factories import open_event, play_round, register_all, report_all
from tournaments import services, snapshots
from tournaments.models import Match, Registration

pytestmark = pytest.mark.django_db

API = "/api/v1/events"
STANDING_ROW = re.compile(r'<tr id="player-(\d+)">\s*<td data-label="[^"]*">(\d+)</td>')
# Records by table, from player 1's (the better seed's) side.
QUARTERFINALS = {1: "0-2", 2: "2-1", 3: "2-0", 4: "1-2"}
SEMIFINALS = {1: "0-2", 2: "2-0"}
FINAL = {1: "1-2"}


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def text_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _swiss_results(number: int, table: int) -> str:
    return {1: "2-1", 2: "1-1-1", 3: "0-2"}.get((number + table) % 4, "2-0")


def play_cut_round(round_, organizer, records) -> None:
    services.publish_round(round_, actor=organizer)
    report_all(round_, lambda _number, table: records[table])
    services.close_round(round_, actor=organizer)


def build_top_8(organizer, fmt, make_players, *, stop_after: str = "finished"):
    """The event of the module docstring, up to ``stop_after`` ("swiss", "quarterfinals",
    "final" or "finished"). Returns (event, Swiss order of registration ids)."""
    event = open_event(organizer, fmt, name="Top 8 Open")
    services.update_event(event, actor=organizer, swiss_rounds=3, top_cut_size=8)
    register_all(event, make_players(10))
    services.start_event(event, actor=organizer)
    for _ in range(3):
        play_round(event, organizer, _swiss_results)
    swiss = services.compute_standings(event).swiss_order()
    if stop_after != "swiss":
        play_cut_round(services.generate_top_cut(event, actor=organizer), organizer, QUARTERFINALS)
    if stop_after in ("final", "finished"):
        play_cut_round(services.advance_bracket(event, actor=organizer), organizer, SEMIFINALS)
        play_cut_round(services.advance_bracket(event, actor=organizer), organizer, FINAL)
    if stop_after == "finished":
        services.finish_event(event, actor=organizer)
    event.refresh_from_db()
    return event, swiss


def expected_finished(swiss: list[int]) -> list[tuple[int, int, str | None]]:
    """(registration, placing, top-cut result) by placing, from the Swiss order."""
    seed = {n: swiss[n - 1] for n in range(1, 11)}
    order = [
        (8, "champion"),
        (2, "finalist"),
        (4, "semifinal"),
        (6, "semifinal"),
        (1, "quarterfinal"),
        (3, "quarterfinal"),
        (5, "quarterfinal"),
        (7, "quarterfinal"),
        (9, None),
        (10, None),
    ]
    return [(seed[n], place, result) for place, (n, result) in enumerate(order, start=1)]


def name_of(registration_id: int) -> str:
    return Registration.objects.select_related("player").get(pk=registration_id).player.username


@pytest.fixture
def finished(organizer, crossover, make_players):
    return build_top_8(organizer, crossover, make_players)


# --- the order, everywhere -----------------------------------------------------------------


def test_services_place_the_bracket_first(finished):
    event, swiss = finished
    table = services.compute_standings(event)
    assert [(line.registration.pk, line.placing, line.top_cut_result) for line in table.rows] == (
        expected_finished(swiss)
    )
    # The Swiss standings are still there, in their own order, with their ranks.
    assert table.swiss_order() == swiss
    assert [line.rank for line in table.swiss_rows] == sorted(line.rank for line in table.rows)
    assert (table.top_cut.size, table.top_cut.rounds, table.top_cut.closed) == (8, 3, 3)
    assert table.top_cut.champion == swiss[7]


def test_standings_page_api_and_csv_agree_champion_first(finished):
    event, swiss = finished
    expected = expected_finished(swiss)
    champion = name_of(swiss[7])

    page = text_of(client_for().get(reverse("tournaments:standings", args=[event.pk])))
    assert [(int(pk), int(place)) for pk, place in STANDING_ROW.findall(page)] == [
        (registration, place) for registration, place, _result in expected
    ]
    assert "<h1>Final standings</h1>" in page
    assert "<title>Final standings · Top 8 Open" in page
    assert f'<p class="banner banner--champion">Champion: {champion}</p>' in page
    assert (
        "After the top 8 cut: its players are placed by the bracket, everyone else by the "
        "standings after 3 Swiss rounds." in page
    )
    assert '<th scope="col">Place</th><th scope="col">Player</th><th scope="col">Swiss rank' in (
        page
    )
    first = page[page.index(f'<tr id="player-{swiss[7]}">') :]
    first = first[: first.index("</tr>")]
    assert (
        f'<td class="row-title">{champion} <span class="badge badge--ok">Champion</span></td>'
        in first
    )
    # The Swiss rank follows the name: the champion was 8th after the Swiss rounds.
    swiss_rank = services.compute_standings(event).swiss_rows[7].rank
    assert f'</td>\n    <td data-label="Swiss rank">{swiss_rank}</td>' in first
    assert page.count('<span class="badge badge--info">Finalist</span>') == 1
    assert page.count('<span class="badge badge--info">Semifinalist</span>') == 2
    assert page.count('<span class="badge badge--muted">Quarterfinalist</span>') == 4

    api = client_for().get(f"{API}/{event.pk}/standings/").json()
    assert [
        (row["registration"], row["placing"], row["top_cut_result"]) for row in api["rows"]
    ] == expected
    assert api["top_cut"] == {
        "size": 8,
        "rounds": 3,
        "closed_rounds": 3,
        "complete": True,
        "champion": champion,
    }
    assert api["rounds"] == 3
    assert set(api["rows"][0]["tiebreakers"]) == {
        "opponents_match_win_pct",
        "game_win_pct",
        "opponents_game_win_pct",
    }

    url = reverse("tournaments:export", kwargs={"pk": event.pk, "kind": "standings", "fmt": "csv"})
    lines = list(csv.reader(io.StringIO(client_for().get(url).content.decode("utf-8-sig"))))
    assert lines[0][:4] == ["Place", "Top-cut result", "Swiss rank", "Player"]
    assert [(name, int(place), result or None) for place, result, _rank, name, *_ in lines[1:]] == [
        (name_of(registration), place, result) for registration, place, result in expected
    ]

    url = reverse("tournaments:export", kwargs={"pk": event.pk, "kind": "standings", "fmt": "json"})
    records = json.loads(client_for().get(url).content)
    assert [(r["player"], r["placing"], r["top_cut_result"]) for r in records] == [
        (name_of(registration), place, result) for registration, place, result in expected
    ]


def test_own_row_box_says_the_place(finished, organizer):
    event, swiss = finished
    registration = Registration.objects.select_related("player").get(pk=swiss[1])
    page = text_of(
        client_for(registration.player).get(reverse("tournaments:standings", args=[event.pk]))
    )
    line = next(
        line for line in services.compute_standings(event).rows if line.registration.pk == swiss[1]
    )
    record = f"{line.wins}-{line.losses}-{line.draws}"
    assert (
        f'<p class="my-row">You: place 2, {line.match_points} points ({record}). '
        f'<span class="badge">Finalist</span> <a href="?page=1#player-{swiss[1]}">'
        "Go to my row</a></p>"
    ) in page


def test_own_row_box_follows_the_readers_language(finished):
    """The viewer's own line is cached per player and language: the finalist reading in
    English, then in Japanese, sees each language's badge."""
    event, swiss = finished
    player = Registration.objects.select_related("player").get(pk=swiss[1]).player
    url = reverse("tournaments:standings", args=[event.pk])
    client = client_for(player)
    english = text_of(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    japanese = text_of(client.get(url, HTTP_ACCEPT_LANGUAGE="ja"))
    assert '<span class="badge">Finalist</span> <a href' in english
    assert '<span class="badge">準優勝</span> <a href' in japanese


# --- the champion --------------------------------------------------------------------------


def test_champion_once_the_final_is_closed(organizer, crossover, make_players):
    event, swiss = build_top_8(organizer, crossover, make_players, stop_after="final")
    # The final's round is closed: the champion is known before "Finish".
    assert event.state == "top_cut"
    assert snapshots.champion(event) == name_of(swiss[7])
    page = text_of(client_for().get(reverse("tournaments:standings", args=[event.pk])))
    assert "<h1>Final standings</h1>" in page
    services.finish_event(event, actor=organizer)
    event.refresh_from_db()
    assert snapshots.champion(event) == name_of(swiss[7])


def test_no_champion_before_the_final_or_without_an_event_over(event_after_round_3):
    event = event_after_round_3.event
    assert snapshots.champion(event) is None


def test_champion_without_a_top_cut_is_the_swiss_leader(organizer, crossover, make_players):
    event = open_event(organizer, crossover, name="Swiss only")
    services.update_event(event, actor=organizer, swiss_rounds=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    play_round(event, organizer)
    event.refresh_from_db()
    assert snapshots.champion(event) is None  # running: not over yet
    services.finish_event(event, actor=organizer)
    event.refresh_from_db()
    leader = services.compute_standings(event).rows[0]
    assert snapshots.champion(event) == leader.registration.player.username
    page = text_of(client_for().get(reverse("tournaments:standings", args=[event.pk])))
    assert "<h1>Final standings</h1>" in page
    assert "After 2 Swiss rounds." in page
    assert '<th scope="col">Rank</th>' in page  # no placing column without a cut


# --- a cut in progress ---------------------------------------------------------------------


def test_top_cut_in_progress(organizer, crossover, make_players):
    event, swiss = build_top_8(organizer, crossover, make_players, stop_after="quarterfinals")
    # Semifinals paired (not played): still the quarterfinals' outcome.
    services.advance_bracket(event, actor=organizer)
    event.refresh_from_db()
    through = [swiss[1], swiss[3], swiss[5], swiss[7]]  # seeds 2, 4, 6, 8 in Swiss order
    out = [swiss[0], swiss[2], swiss[4], swiss[6]]
    expected = (
        [(pk, place, "semifinal") for place, pk in enumerate(through, start=1)]
        + [(pk, place, "quarterfinal") for place, pk in enumerate(out, start=5)]
        + [(swiss[8], 9, None), (swiss[9], 10, None)]
    )
    api = client_for().get(f"{API}/{event.pk}/standings/").json()
    assert [(r["registration"], r["placing"], r["top_cut_result"]) for r in api["rows"]] == (
        expected
    )
    assert api["top_cut"]["complete"] is False
    assert api["top_cut"]["closed_rounds"] == 1
    assert snapshots.champion(event) is None
    page = text_of(client_for().get(reverse("tournaments:standings", args=[event.pk])))
    assert "<h1>Standings</h1>" in page
    assert "banner--champion" not in page
    assert "Top 8 cut in progress" in page
    assert [int(pk) for pk, _place in STANDING_ROW.findall(page)] == [pk for pk, *_ in expected]


# --- the bracket page ----------------------------------------------------------------------


def boxes(body: str) -> list[str]:
    return re.findall(r'<div class="bracket__match">(.*?)</div>', body, re.S)


def test_bracket_page_draws_rounds_winners_scores_and_champion(finished):
    event, swiss = finished
    body = text_of(client_for().get(reverse("tournaments:bracket", args=[event.pk])))
    headings = re.findall(r"<h2>([^<]*)</h2>", body)
    assert headings == ["Quarterfinal", "Semifinal", "Final", "Champion"]
    assert "<table" not in body  # lists and headings, not a layout table
    assert 'role="region" aria-labelledby="bracket-heading" tabindex="0"' in body
    champion = name_of(swiss[7])
    assert f'<p class="bracket__champion">{champion}</p>' in body
    assert f'<p class="banner banner--champion">Champion: {champion}</p>' in body
    shown = boxes(body)
    assert len(shown) == 4 + 2 + 1
    matches = Match.objects.filter(round__event=event, round__stage="top_cut").order_by(
        "round__number", "bracket_position"
    )
    for box, match in zip(shown, matches, strict=True):
        names = re.findall(r'<span class="bracket__name">([^<]*)</span>', box)
        assert names == [match.player1.player.username, match.player2.player.username]
        winner = match.player1 if match.outcome == "player1" else match.player2
        assert (
            f'<span class="bracket__name">{winner.player.username}</span> '
            '<span class="bracket__mark badge badge--ok">winner</span>'
        ) in box
        assert box.count("bracket__player--winner") == 1
    # Scores from the winner's side: 8 beat 1 0-2 (from 1's side) → "2–0"; 6 beat 3 1-2 → "2–1".
    scores = [re.search(r'<span class="bracket__score">([^<]*)</span>', box)[1] for box in shown]
    assert scores == ["2–0", "2–1", "2–0", "2–1", "2–0", "2–0", "2–1"]


def test_bracket_page_before_the_later_rounds(organizer, crossover, make_players):
    event, _swiss = build_top_8(organizer, crossover, make_players, stop_after="quarterfinals")
    body = text_of(client_for().get(reverse("tournaments:bracket", args=[event.pk])))
    assert len(boxes(body)) == 4
    # Two semifinals, the final and the champion are still open.
    assert body.count("to be decided") == 4
    assert "banner--champion" not in body
    assert '<p class="bracket__champion bracket__champion--open">to be decided</p>' in body


def test_bracket_page_of_an_event_without_a_top_cut(organizer, crossover):
    event = open_event(organizer, crossover)
    body = text_of(client_for().get(reverse("tournaments:bracket", args=[event.pk])))
    assert "This event has no top cut." in body


def test_bracket_page_hides_a_draft_round_from_players(organizer, crossover, make_players):
    event, _swiss = build_top_8(organizer, crossover, make_players, stop_after="swiss")
    services.generate_top_cut(event, actor=organizer)  # not published
    public = text_of(client_for().get(reverse("tournaments:bracket", args=[event.pk])))
    assert "The top cut has not started yet." in public
    assert boxes(public) == []
    staff = text_of(client_for(organizer).get(reverse("tournaments:bracket", args=[event.pk])))
    assert len(boxes(staff)) == 4


# --- queries -------------------------------------------------------------------------------


def count(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_queries_after_a_top_cut_are_those_of_the_swiss_standings(
    finished, organizer, crossover, make_players
):
    event, _swiss = finished
    swiss_event = open_event(organizer, crossover, name="Swiss only")
    register_all(swiss_event, make_players(4, prefix="other"))
    services.start_event(swiss_event, actor=organizer)
    play_round(swiss_event, organizer)
    for url in (
        lambda e: reverse("tournaments:standings", args=[e.pk]),
        lambda e: f"{API}/{e.pk}/standings/",
    ):
        counts = []
        for each in (swiss_event, event):
            cache.clear()
            snapshots.forget_engine_standings()
            client = client_for()
            cold = count(client, url(each))
            warm = count(client_for(), url(each))
            counts.append((cold, warm))
        assert counts[0] == counts[1], counts
        assert counts[0][1] == 1  # warm: the event with its revision only
        assert counts[0][0] == 3  # cold: and the registrations and the closed rounds' results


def test_bracket_page_queries_do_not_grow(organizer, crossover, make_players):
    small_event, _ = build_top_8(organizer, crossover, make_players, stop_after="quarterfinals")
    big_event, _ = build_top_8(organizer, crossover, make_players, stop_after="finished")
    counts = []
    for each in (small_event, big_event):
        url = reverse("tournaments:bracket", args=[each.pk])
        count(client_for(), url)  # the champion's standings cached
        counts.append(count(client_for(), url))
    assert counts == [3, 3]  # the event with the viewer's access, the rounds, their matches


def test_a_cut_is_complete_when_its_last_round_is_closed_even_without_a_champion():
    """A final's winner disqualified afterwards is left out of the standings: nobody is
    champion, but the cut is over (the page says "Final standings", not "in progress")."""
    from tournaments.services.standings import TopCutState
    from tournaments.snapshots import TopCutSummary

    for summary in (TopCutState(8, 3, 3, None), TopCutSummary(8, 3, 3, None)):
        assert summary.complete is True
    for summary in (TopCutState(8, 3, 2, None), TopCutSummary(8, 3, 2, None)):
        assert summary.complete is False
