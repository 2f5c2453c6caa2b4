"""The staff dashboard, next action first: the one primary button at each stage of an
event (and that following it runs the event), the draft round's pairings shown for
review, the outstanding tables, confirmation before finishing or re-pairing, who may see
the page, and the searched, paged player list (its query count not growing with the
players)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from tests.tournaments.factories import (
    UserFactory,
    games_for,
    open_event,
    play_round,
    play_top_cut_round,
    register_all,
    report_all,
)
from tests.tournaments.pages.conftest import client_for
from tournaments import services
from tournaments.models import EventState, Match, Round, RoundStatus

pytestmark = pytest.mark.django_db
client_for = client_for  # the page tests' fixture: a Client logged in as a user

PRIMARY_FORM = re.compile(
    r'<form method="post" action="(?P<action>[^"]+)">\s*<input type="hidden" '
    r'name="csrfmiddlewaretoken"[^>]*>\s*<button type="submit" '
    r'class="button button--primary">(?P<label>[^<]+)</button>'
)
PRIMARY_LINK = re.compile(r'<a class="button button--primary" href="([^"]+)">([^<]+)</a>')


def dashboard_url(event) -> str:
    return reverse("tournaments:dashboard", args=[event.pk])


def page(client, event, **params) -> str:
    response = client.get(dashboard_url(event), params)
    assert response.status_code == 200
    return response.content.decode()


def panel(body: str) -> str:
    """The next-step panel's HTML."""
    return body.split('id="next-action"', 1)[1].split("</section>", 1)[0]


def next_kind(body: str) -> str:
    return re.search(r'data-next="([a-z_]+)"', body).group(1)


def primary(body: str) -> tuple[str, str]:
    """The page's one primary button: (form action or link, label)."""
    assert body.count("button--primary") == 1, body.count("button--primary")
    found = PRIMARY_FORM.search(body)
    if found:
        return found["action"], html.unescape(found["label"])
    link = PRIMARY_LINK.search(body)
    return html.unescape(link[1]), html.unescape(link[2])


@pytest.fixture
def running(organizer, crossover, make_players):
    """Seven players (a bye each round), two Swiss rounds, started."""
    event = open_event(organizer, crossover, swiss_rounds=2)
    register_all(event, make_players(7))
    services.start_event(event, actor=organizer)
    event.refresh_from_db()
    return event


def test_draft_and_open_events_offer_their_transition(client_for, organizer, crossover):
    event = open_event(organizer, crossover)
    client = client_for(organizer)
    assert primary(page(client, event)) == (
        reverse("tournaments:event_transition", args=[event.pk, "start"]),
        "Start the event",
    )
    draft = services.create_event(
        organizer=organizer,
        format=crossover,
        name="Draft",
        date=event.date,
        capacity=8,
        pairing_seed="t",
    )
    assert primary(page(client, draft)) == (
        reverse("tournaments:event_transition", args=[draft.pk, "open-registration"]),
        "Open registration",
    )


def test_each_stage_of_a_round_has_its_one_primary_button(client_for, running, organizer):
    event = running
    client = client_for(organizer)
    body = page(client, event)
    assert primary(body) == (
        reverse("tournaments:generate_round", args=[event.pk]),
        "Generate round 1",
    )
    assert "Finish the event" not in body  # never during the Swiss rounds

    round_ = services.generate_round(event, actor=organizer)
    body = page(client, event)
    assert next_kind(body) == "review_and_publish"
    assert primary(body) == (
        reverse("tournaments:round_action", args=[event.pk, 1, "publish"]),
        "Publish round 1",
    )
    review = panel(body)
    # The draft round's pairings are on the page: every table with both names, the bye.
    matches = Match.objects.filter(round=round_).select_related(
        "player1__player", "player2__player"
    )
    assert "Review the pairings of round 1 (4 tables)." in review
    for match in matches:
        assert f'<tr id="table-{match.table}">' in review
        assert match.player1.player.username in review
    bye = matches.get(player2=None)
    assert f'<span class="badge badge--info">bye</span> {bye.player1.player.username}' in review
    edit = reverse("tournaments:edit_pairings", args=[event.pk, 1]) + "?next=dashboard"
    assert f'<a class="button button--secondary" href="{edit}">Edit pairings</a>' in review
    # Re-pairing replaces the round: a danger button behind a reason and an "I understand".
    repair = review.split('action="' + reverse("tournaments:repair_round", args=[event.pk, 1]))[1]
    repair = repair.split("</form>")[0]
    assert 'name="reason" maxlength="500" required' in repair
    assert '<input type="checkbox" name="confirm" value="yes" required>' in repair
    assert 'class="button button--danger">Re-pair round 1</button>' in repair

    services.publish_round(round_, actor=organizer)
    assert primary(page(client, event)) == (
        reverse("tournaments:round_action", args=[event.pk, 1, "start"]),
        "Start the clock of round 1",
    )

    services.start_round_clock(round_, actor=organizer)
    body = page(client, event)
    assert next_kind(body) == "chase_results"
    assert primary(body) == (
        dashboard_url(event),
        "Waiting for 3 results (tables 1, 2, 3): check again",
    )
    chase = panel(body)
    assert "Round 1: 3 results are missing." in chase
    for match in matches.exclude(player2=None):
        url = reverse("tournaments:match_result", args=[event.pk, match.pk])
        assert f'<td class="row-title">Table {match.table}</td>' in chase
        assert f"{match.player1.player.username} – {match.player2.player.username}</td>" in chase
        assert f'<a href="{url}">Enter result' in chase
    close = reverse("tournaments:round_action", args=[event.pk, 1, "close"])
    assert close not in body  # closing waits for the results

    report_all(round_)
    assert primary(page(client, event)) == (close, "Close round 1")

    services.close_round(round_, actor=organizer)
    body = page(client, event)
    assert primary(body) == (
        reverse("tournaments:generate_round", args=[event.pk]),
        "Generate round 2",
    )
    assert "Finish the event" not in body


def test_a_disputed_match_is_named_first(client_for, running, organizer):
    event = running
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    match = Match.objects.filter(round=round_).exclude(player2=None).order_by("-table").first()
    match = services.report_result(
        match, actor=match.player1.player, games=games_for("2-0"), expected_version=match.version
    )
    services.dispute_result(
        match, actor=match.player2.player, expected_version=match.version, reason="No"
    )
    body = page(client_for(organizer), event)
    chase = panel(body)
    assert '<span class="badge badge--bad">1 disputed</span>' in chase
    rows = re.findall(r'<td class="row-title">Table (\d+)</td>', chase)
    assert rows[0] == str(match.table)
    assert primary(body)[1] == f"Waiting for 3 results (tables {match.table}, 1, 2): check again"


def test_the_last_swiss_round_leads_to_a_confirmed_finish(client_for, running, organizer):
    event = running
    play_round(event, organizer)
    play_round(event, organizer)
    body = page(client_for(organizer), event)
    assert next_kind(body) == "finish_event"
    assert "button--primary" not in body  # finishing is never the bold default
    form = panel(body).split("<form", 1)[1].split("</form>")[0]
    assert reverse("tournaments:event_transition", args=[event.pk, "finish"]) in form
    assert '<input type="checkbox" name="confirm" value="yes" required>' in form
    assert "I understand: finishing the event cannot be undone." in form
    assert '<button type="submit" class="button button--danger">Finish the event</button>' in form

    # Without the ticked box the server refuses too (a stale form, a script).
    refused = client_for(organizer).post(
        reverse("tournaments:event_transition", args=[event.pk, "finish"]), follow=True
    )
    assert "Tick “I understand” to finish the event" in refused.content.decode()
    event.refresh_from_db()
    assert event.state != EventState.FINISHED

    response = client_for(organizer).post(
        reverse("tournaments:event_transition", args=[event.pk, "finish"]), {"confirm": "yes"}
    )
    assert response["Location"] == dashboard_url(event)
    event.refresh_from_db()
    assert event.state == EventState.FINISHED
    body = page(client_for(organizer), event)
    assert next_kind(body) == "done"
    assert "</button>" not in panel(body)


def test_top_cut_and_bracket_rounds(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=4)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    client = client_for(organizer)
    assert primary(page(client, event)) == (
        reverse("tournaments:generate_top_cut", args=[event.pk]),
        "Generate the top cut",
    )
    semis = services.generate_top_cut(event, actor=organizer)
    body = page(client, event)
    assert primary(body)[1] == "Publish round 2"
    assert "Re-pair" not in body  # the seeds decide
    assert "Edit pairings" not in body
    play_top_cut_round(semis, organizer)
    assert primary(page(client, event)) == (
        reverse("tournaments:advance_bracket", args=[event.pk]),
        "Next bracket round",
    )
    final = services.advance_bracket(event, actor=organizer)
    play_top_cut_round(final, organizer)
    assert next_kind(page(client, event)) == "finish_event"


def test_judge_sees_the_step_without_its_buttons(client_for, running, organizer, judge):
    event = running
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    client = client_for(judge)
    body = page(client, event)
    assert next_kind(body) == "generate_round"
    assert "button--primary" not in body
    assert "Only the event's organizers take this step." in body
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    body = page(client, event)
    # Chasing results is the judges' work too: the list and the result links are there.
    match = Match.objects.filter(round=round_).exclude(player2=None).first()
    assert reverse("tournaments:match_result", args=[event.pk, match.pk]) in panel(body)


def test_outsider_player_and_anonymous_are_refused(client_for, running, outsider):
    url = dashboard_url(running)
    assert client_for(outsider).get(url).status_code == 403
    player = running.registrations.first().player
    assert client_for(player).get(url).status_code == 403
    anonymous = client_for().get(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"


def test_following_the_primary_button_runs_two_rounds(client_for, running, organizer):
    """Only the panel's button (and the players' results) move the event on; every POST
    comes back to the dashboard."""
    event = running
    client = client_for(organizer)
    seen = []
    for _ in range(20):
        body = page(client, event)
        kind = next_kind(body)
        seen.append(kind)
        if kind == "finish_event":
            break
        target, _label = primary(body)
        if kind == "chase_results":
            report_all(Round.objects.get(event=event, status=RoundStatus.RUNNING))
            continue
        response = client.post(target)
        assert response.status_code == 302
        assert response["Location"] == dashboard_url(event)
    steps = ["generate_round", "review_and_publish", "start_clock", "chase_results", "close_round"]
    assert seen == [*steps, *steps, "finish_event"]
    assert list(Round.objects.filter(event=event).values_list("number", "status")) == [
        (1, "closed"),
        (2, "closed"),
    ]


# --- the player list ----------------------------------------------------------------------


@pytest.fixture
def crowded(organizer, crossover):
    event = open_event(organizer, crossover, capacity=100)
    players = [UserFactory(username=f"p{n:03d}") for n in range(1, 61)]
    players[41].first_name, players[41].last_name = "Hikaru", "Sakuraba"
    players[41].save()
    register_all(event, players)
    return event


def player_rows(body: str) -> list[str]:
    players = body.split('id="players"', 1)[1].split("</table>", 1)[0]
    return [name.strip() for name in re.findall(r'<td class="row-title">([^<]+)', players)]


def test_player_list_is_paged(client_for, crowded, organizer):
    client = client_for(organizer)
    first = player_rows(page(client, crowded))
    assert len(first) == 50
    assert first[0] == "p001"
    body = page(client, crowded, page=2)
    second = player_rows(body)
    assert len(second) == 10
    assert second[-1] == "p060"
    assert "Page 2 of 2 (rows 51–60 of 60)" in body
    assert player_rows(page(client, crowded, page=99)) == second  # past the end: the last page
    assert len(player_rows(page(client, crowded, page="x"))) == 50


def test_player_list_is_searched_by_username_or_name(client_for, crowded, organizer):
    client = client_for(organizer)
    body = page(client, crowded, q="p05")
    assert player_rows(body) == [f"p05{n}" for n in range(10)]
    assert "10 players match “p05”." in body
    assert 'value="p05"' in body
    assert player_rows(page(client, crowded, q="sakura")) == ["Hikaru Sakuraba"]
    body = page(client, crowded, q="nobody")
    assert 'class="players responsive"' not in body
    assert "No player matches this search." in body


def test_search_is_kept_on_the_page_links(client_for, crowded, organizer):
    body = page(client_for(organizer), crowded, q="p")
    assert 'href="?q=p&amp;page=2" rel="next"' in body


def test_dashboard_queries_do_not_grow_with_players(
    client_for, organizer, crossover, django_assert_max_num_queries
):
    counts = []
    for size in (10, 60):
        event = open_event(organizer, crossover, name=f"E{size}", capacity=100)
        register_all(event, [UserFactory(username=f"s{size}-{n}") for n in range(size)])
        services.start_event(event, actor=organizer)
        round_ = services.generate_round(event, actor=organizer)
        services.publish_round(round_, actor=organizer)
        services.start_round_clock(round_, actor=organizer)
        client = client_for(organizer)
        client.get(dashboard_url(event))  # the session, the cached snapshots
        with django_assert_max_num_queries(12) as captured:
            assert client.get(dashboard_url(event)).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_edit_pairings_from_the_review_comes_back_to_the_dashboard(client_for, running, organizer):
    event = running
    round_ = services.generate_round(event, actor=organizer)
    client = client_for(organizer)
    edit = reverse("tournaments:edit_pairings", args=[event.pk, 1]) + "?next=dashboard"
    assert f'href="{edit}"' in panel(page(client, event))
    tables = {m.table: (m.player1_id, m.player2_id) for m in round_.matches.all()}
    (a, b), (c, d) = tables[1], tables[2]
    wanted = {**tables, 1: (a, c), 2: (b, d)}
    data = {"reason": "Friends", "new_tables": "0"}
    for table, (player1, player2) in wanted.items():
        data[f"table{table}_player1"] = str(player1)
        data[f"table{table}_player2"] = str(player2) if player2 else "bye"
    response = client.post(edit, data)
    assert response.status_code == 302
    assert response["Location"] == dashboard_url(event)
    assert {m.table: (m.player1_id, m.player2_id) for m in round_.matches.all()} == wanted
    body = page(client, event)
    assert "Pairings of round 1 saved." in body
    assert next_kind(body) == "review_and_publish"
    # Any other "next" keeps the pairings page as before (no open redirect).
    other = reverse("tournaments:edit_pairings", args=[event.pk, 1]) + "?next=https://evil.test/"
    data["reason"] = "Back"
    for table, (player1, player2) in tables.items():
        data[f"table{table}_player1"] = str(player1)
        data[f"table{table}_player2"] = str(player2) if player2 else "bye"
    response = client.post(other, data)
    assert response["Location"] == reverse("tournaments:pairings", args=[event.pk, 1])
