"""Public pages: event list, event page, pairings, standings, bracket, decklists."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from tests.tournaments.factories import (
    new_event,
    open_event,
    play_round,
    register_all,
)
from tournaments import services

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return response.content.decode()


def test_event_list_shows_visible_events_only(client_for, organizer, outsider, crossover):
    open_event(organizer, crossover, name="Spring Open")
    new_event(organizer, crossover, name="Secret Draft")
    public = text_of(client_for(outsider).get(reverse("tournaments:event_list")))
    assert "Spring Open" in public
    assert "Secret Draft" not in public
    own = text_of(client_for(organizer).get(reverse("tournaments:event_list")))
    assert "Spring Open" in own
    assert "Secret Draft" in own


def test_event_list_query_count_is_fixed(
    client_for, organizer, crossover, django_assert_num_queries
):
    client = client_for()
    open_event(organizer, crossover, name="One")
    with django_assert_num_queries(1):
        assert client.get(reverse("tournaments:event_list")).status_code == 200
    for name in ("Two", "Three"):
        open_event(organizer, crossover, name=name)
    with django_assert_num_queries(1):
        response = client.get(reverse("tournaments:event_list"))
    assert text_of(response).count("/events/") >= 3


def test_event_page_shows_state_format_date_counts(client_for, event_after_round_3):
    event = event_after_round_3.event
    response = client_for().get(reverse("tournaments:event_detail", args=[event.pk]))
    assert response.status_code == 200
    body = text_of(response)
    assert "<h1>Spring Open</h1>" in body
    assert '<span class="badge badge--ok">Swiss rounds</span>' in body
    assert "2026-05-16" in body
    assert escape(str(event.format)) in body
    # eight players, one of whom dropped after round 2 (still a player of the event)
    assert "<dt>Players</dt><dd>8 players · 1 dropped</dd>" in body
    for number in (1, 2, 3):
        assert reverse("tournaments:pairings", args=[event.pk, number]) in body
    assert reverse("tournaments:standings", args=[event.pk]) in body
    assert reverse("tournaments:bracket", args=[event.pk]) in body
    assert reverse("tournaments:dashboard", args=[event.pk]) not in body


def test_draft_event_is_404_for_outsider_and_200_for_staff(
    client_for, organizer, outsider, crossover
):
    event = new_event(organizer, crossover)
    url = reverse("tournaments:event_detail", args=[event.pk])
    assert client_for(outsider).get(url).status_code == 404
    assert client_for().get(url).status_code == 404
    assert client_for(organizer).get(url).status_code == 200
    for name in ("standings", "bracket", "decklists"):
        assert (
            client_for(outsider).get(reverse(f"tournaments:{name}", args=[event.pk])).status_code
            == 404
        )


def test_pairings_by_table_and_by_name(client_for, event_after_round_3):
    event = event_after_round_3.event
    round_ = event_after_round_3.rounds[0]
    url = reverse("tournaments:pairings", args=[event.pk, round_.number])
    body = text_of(client_for().get(url))
    assert "<h1>Round 1 pairings</h1>" in body
    first = round_.matches.order_by("table").first()
    p1, p2 = first.player1.player.username, first.player2.player.username
    # Round 1: nobody has points yet, so no points beside the names.
    assert (
        f'<td data-label="Table">{first.table}</td>\n'
        f'    <td data-label="Player 1">{p1}</td>\n'
        f'    <td data-label="Player 2">{p2}</td>\n'
        f'    <td data-label="Result">{first.record_text}</td>' in body
    )
    by_name = text_of(client_for().get(url + "?by=name"))
    names = [f"player{n:03d}" for n in range(1, 9)]
    positions = [by_name.index(f'<td class="row-title">{name}</td><td') for name in names]
    assert positions == sorted(positions)
    assert (
        f'<td class="row-title">{p2}</td><td data-label="Table">{first.table}</td>'
        f'<td data-label="Opponent">{p1}</td>' in by_name
    )


def test_unpublished_round_pairings_are_404_for_public(client_for, event_after_round_3, organizer):
    event = event_after_round_3.event
    round_ = services.generate_round(event, actor=organizer)
    url = reverse("tournaments:pairings", args=[event.pk, round_.number])
    assert client_for().get(url).status_code == 404
    assert client_for(organizer).get(url).status_code == 200


def _event_with_round(organizer, fmt, make_players, count, prefix):
    event = open_event(organizer, fmt, name=f"Event {count}", capacity=16)
    register_all(event, make_players(count, prefix=prefix))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    return event


@pytest.mark.parametrize("page", ["pairings", "pairings_by_name", "standings"])
def test_list_pages_query_count_is_the_same_small_and_large(
    page, client_for, organizer, crossover, make_players, django_assert_num_queries
):
    small = _event_with_round(organizer, crossover, make_players, 2, "small")
    large = _event_with_round(organizer, crossover, make_players, 8, "large")
    client = client_for()
    counts = []
    for event in (small, large):
        if page == "standings":
            url = reverse("tournaments:standings", args=[event.pk])
        else:
            url = reverse("tournaments:pairings", args=[event.pk, 1])
            if page == "pairings_by_name":
                url += "?by=name"
        # event, round (pairings only), the list itself (standings: registrations, results)
        with django_assert_num_queries(3) as captured:
            assert client.get(url).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_standings_show_tiebreak_working(client_for, event_after_round_3):
    event = event_after_round_3.event
    table = services.compute_standings(event)
    leader = table.rows[0]
    working = table.explain(leader.registration.pk)
    url = reverse("tournaments:standings", args=[event.pk])
    body = text_of(client_for().get(url))
    assert "After 3 Swiss rounds." in body
    assert '<th scope="col">OMW%</th><th scope="col">GW%</th><th scope="col">OGW%</th>' in body
    omw = leader.tiebreakers["opponents_match_win_pct"]
    assert f'<td data-label="OMW%">{omw * 100:.2f}%</td>' in body
    leader_id = leader.registration.pk
    row_start = body.index(f'id="player-{leader_id}"')
    row = body[row_start : body.index("</details>", row_start)]
    assert f'<td data-label="Points">{leader.match_points}</td>' in row
    # The working is loaded on demand: htmx from the fragment, or the page with ?player=.
    fragment_url = reverse("tournaments:standings_working", args=[event.pk, leader_id])
    assert f'hx-get="{fragment_url}"' in row
    assert f'href="?player={leader_id}#player-{leader_id}"' in row
    assert "<dt>Rounds played</dt>" not in body
    fragment = text_of(client_for().get(fragment_url))
    with_player = text_of(client_for().get(f"{url}?player={leader_id}"))
    opened = with_player[with_player.index(f'id="player-{leader_id}"') :]
    opened = opened[: opened.index("</details>")]
    for working_html in (fragment, opened):
        assert "<dt>Rounds played</dt><dd>3</dd>" in working_html
        for opponent in working.opponents:
            name = table.registrations[opponent.opponent].player.username
            assert f"<td>{opponent.round_number}</td>\n    <td>{name}" in working_html
            assert f"<td>{opponent.wins}-{opponent.losses}-{opponent.draws}</td>" in working_html
    assert with_player.count("<dt>Rounds played</dt>") == 1
    # the dropped player keeps their place, marked
    assert '<span class="badge">dropped</span>' in body


def test_standings_working_of_an_unranked_player_is_404(client_for, event_after_round_3, outsider):
    event = event_after_round_3.event
    url = reverse("tournaments:standings_working", args=[event.pk, 999999])
    assert client_for().get(url).status_code == 404


def test_bracket_without_top_cut(client_for, organizer, crossover):
    event = open_event(organizer, crossover)
    body = text_of(client_for().get(reverse("tournaments:bracket", args=[event.pk])))
    assert "This event has no top cut." in body


def test_decklists_hidden_until_public(client_for, event_after_round_3, organizer, outsider):
    event = event_after_round_3.event
    url = reverse("tournaments:decklists", args=[event.pk])
    hidden = text_of(client_for(outsider).get(url))
    assert "Decklists of this event are not public." in hidden
    assert "森原 さとみ" not in hidden
    own = text_of(client_for(event_after_round_3.players[0]).get(url))
    assert own.count('<pre class="decklist">') == 1
    services.update_event(
        event, actor=organizer, decklists_public_from=timezone.now() - dt.timedelta(minutes=1)
    )
    shown = text_of(client_for(outsider).get(url))
    assert shown.count('<pre class="decklist">') == 8
    assert "<h2>player001</h2>" in shown


@pytest.mark.parametrize("value", ["²", "x", "-1", "１"])
def test_standings_ignore_a_player_parameter_that_is_no_number(
    client_for, event_after_round_3, value
):
    url = reverse("tournaments:standings", args=[event_after_round_3.event.pk])
    response = client_for().get(url, {"player": value})
    assert response.status_code == 200
    assert "<dt>Rounds played</dt>" not in text_of(response)
