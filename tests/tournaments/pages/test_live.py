"""Live rounds: the public round clock (with a frozen clock), the projector, the live JSON
(ETag, 304, revisions), the pairings page's live part (points and records, previous/next
rounds, the current pairings URL) and the judges' time extensions through the page and
the API."""

import datetime as dt
import json
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.tournaments.factories import new_event, open_event, register_all
from tournaments import services
from tournaments.models import AuditEntry, EventRevision, Match
from tournaments.services.clock import extend_match_time

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 5, 16, 5, 0, tzinfo=dt.UTC)  # 14:00 in Tokyo


def text_of(response) -> str:
    return response.content.decode()


@pytest.fixture
def frozen(monkeypatch):
    """Freeze ``timezone.now()`` (the services stamp and the views read it) at ``set``."""
    state = SimpleNamespace(now=START)

    def set_now(moment):
        state.now = moment

    monkeypatch.setattr(timezone, "now", lambda: state.now)
    return set_now


@pytest.fixture
def live(staffed_event, organizer, make_players, frozen):
    """Four players, round 1 generated (a draft); the clock starts at 14:00 when asked."""
    event = staffed_event
    players = make_players(4)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    event.refresh_from_db()
    return SimpleNamespace(
        event=event, round=round_, players=players, registrations=registrations, frozen=frozen
    )


def clock_url(event, number=1):
    return reverse("tournaments:round_clock", args=[event.pk, number])


def start(live, organizer):
    services.publish_round(live.round, actor=organizer)
    services.start_round_clock(live.round, actor=organizer)


# --- the clock -----------------------------------------------------------------------------


def test_clock_of_a_draft_round_is_a_styled_404_for_visitors(client_for, live, outsider, judge):
    url = clock_url(live.event)
    for client in (client_for(), client_for(outsider), client_for(live.players[0])):
        response = client.get(url)
        assert response.status_code == 404
        body = text_of(response)
        assert '<header class="site-header">' in body  # the site's page, styled
        assert "There is no such round, or its pairings are not published yet." in body
    japanese = client_for().get(url, HTTP_ACCEPT_LANGUAGE="ja")
    assert japanese.status_code == 404
    assert '<html lang="ja">' in text_of(japanese)
    # The staff see the draft's clock.
    assert client_for(judge).get(url).status_code == 200
    # A round that does not exist, and an event visitors may not see: the same page.
    assert client_for().get(clock_url(live.event, 9)).status_code == 404


def test_clock_of_a_private_event_is_404(client_for, organizer, crossover, outsider):
    event = new_event(organizer, crossover, name="Private")
    response = client_for(outsider).get(clock_url(event))
    assert response.status_code == 404
    assert "There is no such round" in text_of(response)


def test_anonymous_visitor_sees_a_published_rounds_clock_not_started(client_for, live, organizer):
    services.publish_round(live.round, actor=organizer)
    response = client_for().get(clock_url(live.event))
    assert response.status_code == 200
    body = text_of(response)
    assert "<h1>Round 1 clock</h1>" in body
    assert "The clock has not started." in body
    assert "data-ends-at" not in body
    assert f'data-live="{reverse("tournaments:live", args=[live.event.pk])}"' in body


def test_clock_shows_minutes_left_and_the_end_with_a_frozen_clock(client_for, live, organizer):
    start(live, organizer)  # 14:00, 50 minutes
    live.frozen(START + dt.timedelta(minutes=38, seconds=10))
    body = text_of(client_for().get(clock_url(live.event)))
    assert (
        '<time data-ends-at="2026-05-16T05:50:00+00:00" '
        'data-server-now="2026-05-16T05:38:10+00:00" data-minutes="%(minutes)s min" '
        'data-over="Time is up">12 min</time>'
    ) in body
    assert "Round ends at 14:50" in body
    assert 'class="clock clock--running"' in body
    live.frozen(START + dt.timedelta(minutes=51))
    body = text_of(client_for().get(clock_url(live.event)))
    assert 'class="clock clock--over"' in body
    assert 'data-over="Time is up">Time is up</time>' in body


def test_clock_in_japanese(client_for, live, organizer):
    start(live, organizer)
    live.frozen(START + dt.timedelta(minutes=20))
    body = text_of(client_for().get(clock_url(live.event), HTTP_ACCEPT_LANGUAGE="ja"))
    assert '<html lang="ja">' in body
    # "%(minutes)s min" is 「%(minutes)s分」 once the catalogue has it.
    assert ">30分</time>" in body or ">30 min</time>" in body


def test_player_sees_their_tables_extension_on_the_clock(client_for, live, organizer, judge):
    start(live, organizer)
    match = Match.objects.filter(round=live.round).order_by("table").first()
    extend_match_time(match, actor=judge, minutes=5, reason="Deck check")
    live.frozen(START + dt.timedelta(minutes=40))
    player = match.player1.player
    body = text_of(client_for(player).get(clock_url(live.event)))
    assert "Round ends 14:50, your table +5 min: 14:55" in body
    # The table's clock depends on nothing but the revision (the pages that include it
    # are cached): its end, which live.js counts down from.
    assert (
        '<time data-ends-at="2026-05-16T05:55:00+00:00" data-minutes="%(minutes)s min left" '
        'data-over="Time is up">14:55</time>'
    ) in body
    # Someone at another table sees the round's time only.
    other = Match.objects.filter(round=live.round).order_by("table").last().player1.player
    assert "your table" not in text_of(client_for(other).get(clock_url(live.event)))


def test_clock_query_count(client_for, live, organizer, django_assert_max_num_queries):
    start(live, organizer)
    client = client_for()
    client.get(clock_url(live.event))
    with django_assert_max_num_queries(2):  # the event with its access, the round
        assert client.get(clock_url(live.event)).status_code == 200


# --- the projector -------------------------------------------------------------------------


def test_projector_shows_two_events_side_by_side(client_for, live, organizer, crossover):
    start(live, organizer)
    other = open_event(organizer, crossover, name="Side Event")
    live.frozen(START + dt.timedelta(minutes=5))
    for url in (
        reverse("tournaments:projector") + f"?events={live.event.pk},{other.pk}",
        reverse("tournaments:event_clock", args=[live.event.pk]) + f"?with={other.pk}",
    ):
        response = client_for().get(url)
        assert response.status_code == 200, url
        body = text_of(response)
        assert 'class="projector projector--2"' in body
        assert f'id="clock-{live.event.pk}"' in body
        assert f'id="clock-{other.pk}"' in body
        assert ">45 min</time>" in body
        assert "Side Event" in body
        assert "No round yet." in body
        assert '<header class="site-header">' not in body
        assert "live.js" in body


def test_projector_refuses_hidden_events_and_bad_lists(client_for, live, organizer, crossover):
    private = new_event(organizer, crossover, name="Private")
    base = reverse("tournaments:projector")
    for query in (f"?events={private.pk}", "?events=", "?events=x", "?events=1,2,3,4,5"):
        assert client_for().get(base + query).status_code == 404, query
    assert client_for(organizer).get(base + f"?events={private.pk}").status_code == 200


def test_projector_never_shows_a_draft_round_even_to_the_staff(client_for, live, organizer):
    """The projector is a public screen: round 1 is generated but not published, so the
    organizer's browser shows no round there either (the hall must not read "Round 1"
    before the pairings are up)."""
    url = reverse("tournaments:event_clock", args=[live.event.pk])
    body = text_of(client_for(organizer).get(url))
    assert "No round yet." in body
    assert "Round 1" not in body
    services.publish_round(live.round, actor=organizer)
    assert "Round 1" in text_of(client_for(organizer).get(url))


@pytest.mark.parametrize("query", ["?events=99999999999999999999", "?events=1234567890123456789"])
def test_projector_answers_404_for_an_id_no_database_holds(client_for, live, query):
    assert client_for().get(reverse("tournaments:projector") + query).status_code == 404
    with_url = reverse("tournaments:event_clock", args=[live.event.pk]) + "?with=" + query[8:]
    assert client_for().get(with_url).status_code == 404


# --- the live JSON -------------------------------------------------------------------------


def live_url(event):
    return reverse("tournaments:live", args=[event.pk])


def test_live_json_etag_304_and_new_revision_after_publish_and_result(
    client_for, live, organizer, settings
):
    settings.LIVE_POLL_SECONDS = 15
    client = client_for()
    first = client.get(live_url(live.event))
    assert first.status_code == 200
    assert first["Cache-Control"] == "private, no-cache"
    data = json.loads(first.content)
    assert data["revision"] == EventRevision.objects.get(event=live.event).number
    assert data["now"] == START.isoformat()
    assert data["poll"] == 15
    assert data["current_round"] is None  # the draft is not public
    assert data["rounds"] == []
    again = client.get(live_url(live.event), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    services.publish_round(live.round, actor=organizer)
    published = client.get(live_url(live.event), HTTP_IF_NONE_MATCH=first["ETag"])
    assert published.status_code == 200
    data = json.loads(published.content)
    assert data["revision"] > json.loads(first.content)["revision"]
    assert data["current_round"] == {
        "number": 1,
        "stage": "swiss",
        "status": "published",
        "started_at": None,
        "ends_at": None,
    }
    services.start_round_clock(live.round, actor=organizer)
    data = json.loads(client.get(live_url(live.event)).content)
    assert data["current_round"]["ends_at"] == "2026-05-16T05:50:00+00:00"
    # A result changes the revision (the pairings show it).
    before = client.get(live_url(live.event))
    match = Match.objects.filter(round=live.round).first()
    services.report_result(
        match, actor=match.player1.player, record="2-0", expected_version=match.version
    )
    after = client.get(live_url(live.event), HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert json.loads(after.content)["revision"] == json.loads(before.content)["revision"] + 1


def test_live_json_shows_drafts_to_the_staff_only(client_for, live, judge):
    data = json.loads(client_for(judge).get(live_url(live.event)).content)
    assert data["current_round"]["status"] == "draft"
    assert json.loads(client_for().get(live_url(live.event)).content)["rounds"] == []


def test_live_json_is_cheap(client_for, live, organizer):
    client = client_for()
    first = client.get(live_url(live.event))
    with CaptureQueriesContext(connection) as queries:
        assert client.get(live_url(live.event), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == (
            304
        )
    assert len(queries) == 1  # the event with its revision
    with CaptureQueriesContext(connection) as queries:
        assert client.get(live_url(live.event)).status_code == 200
    assert len(queries) == 1  # and the cached answer
    services.publish_round(live.round, actor=organizer)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(live_url(live.event)).status_code == 200
    assert len(queries) == 2  # a new revision: the rounds once


def test_live_json_of_a_private_event_is_404(client_for, organizer, crossover, outsider):
    event = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).get(live_url(event)).status_code == 404
    assert client_for(organizer).get(live_url(event)).status_code == 200


# --- pairings: live part, points, rounds ---------------------------------------------------


def pairings_url(event, number=None):
    if number is None:
        return reverse("tournaments:current_pairings", args=[event.pk])
    return reverse("tournaments:pairings", args=[event.pk, number])


def test_current_pairings_waits_for_the_round_then_shows_it(client_for, live, organizer):
    client = client_for(live.players[0])
    body = text_of(client.get(pairings_url(live.event)))
    assert "No pairings are up yet." in body
    assert f'<div id="pairings-live" data-live="{live_url(live.event)}"' in body
    services.publish_round(live.round, actor=organizer)
    body = text_of(client.get(pairings_url(live.event)))
    assert "<h1>Round 1 pairings</h1>" in body
    assert 'data-live-announce="Round 1 pairings are up."' in body
    assert '<table class="pairings responsive">' in body
    assert "You: table" in body


def test_pairings_show_points_records_and_round_links(client_for, event_after_round_3):
    f = event_after_round_3
    client = client_for()
    standings = {line.registration.pk: line for line in services.compute_standings(f.event).rows}
    round_4 = services.generate_round(f.event, actor=f.organizer)
    services.publish_round(round_4, actor=f.organizer)
    body = text_of(client.get(pairings_url(f.event, 4)))
    match = round_4.matches.select_related("player1__player").order_by("table").first()
    line = standings[match.player1_id]
    points = f"{line.match_points} pts · {line.wins}-{line.losses}-{line.draws}"
    assert (
        f'<td data-label="Player 1">{match.player1.player.username} '
        f'<small class="points">{points}</small></td>'
    ) in body
    assert (
        f'<a class="button button--secondary" href="{pairings_url(f.event, 3)}" rel="prev">' in body
    )
    assert 'rel="next"' not in body
    # Round 2 shows what the players had after round 1, and links both ways.
    after_1 = {
        line.registration.pk: line
        for line in services.compute_standings(f.event, through_round=1).rows
    }
    body = text_of(client.get(pairings_url(f.event, 2)))
    match = f.rounds[1].matches.select_related("player1__player").order_by("table").first()
    line = after_1[match.player1_id]
    unit = "pt" if line.match_points == 1 else "pts"
    record = f"{line.wins}-{line.losses}-{line.draws}"
    assert (
        f'{match.player1.player.username} <small class="points">{line.match_points} {unit} · '
        f"{record}</small>"
    ) in body
    assert f'href="{pairings_url(f.event, 1)}" rel="prev"' in body
    assert f'href="{pairings_url(f.event, 3)}" rel="next"' in body
    # Round 1: nobody has points yet.
    assert 'class="points"' not in text_of(client.get(pairings_url(f.event, 1)))
    # The current pairings are round 4's.
    assert "<h1>Round 4 pairings</h1>" in text_of(client.get(pairings_url(f.event)))


def test_extension_badge_on_pairings_and_slips(client_for, live, organizer, judge):
    start(live, organizer)
    match = Match.objects.filter(round=live.round).order_by("table").first()
    client = client_for()
    assert "+5 min" not in text_of(client.get(pairings_url(live.event, 1)))
    extend_match_time(match, actor=judge, minutes=5, reason="Deck check")
    body = text_of(client.get(pairings_url(live.event, 1)))
    row = body.split(f'<tr id="table-{match.table}">')[1].split("</tr>")[0]
    assert (
        f'<td data-label="Table">{match.table} <span class="badge badge--info">+5 min'
        '<span class="visually-hidden"> extra time</span></span></td>'
    ) in row
    assert body.count("+5 min") == 1
    slips = text_of(
        client_for(judge).get(reverse("tournaments:match_slips", args=[live.event.pk, 1]))
    )
    assert slips.count("Extra time for this table: +5 min") == 1


# --- extensions: the staff page and the API ----------------------------------------------


def extend_url(event, match):
    return reverse("tournaments:extend_match_time", args=[event.pk, match.pk])


def test_judge_extends_a_table_from_the_match_page(client_for, live, organizer, judge):
    start(live, organizer)
    match = Match.objects.filter(round=live.round).order_by("table").first()
    page = reverse("tournaments:match_result", args=[live.event.pk, match.pk])
    client = client_for(judge)
    body = text_of(client.get(page))
    assert "Give this table extra time" in body
    assert f'action="{extend_url(live.event, match)}"' in body
    response = client.post(extend_url(live.event, match), {"minutes": "3", "reason": "Deck check"})
    assert response.status_code == 302
    assert response["Location"] == page
    match.refresh_from_db()
    assert match.extra_minutes == 3
    entry = AuditEntry.objects.get(action="match.time_extended")
    assert (entry.actor, entry.reason) == (judge, "Deck check")
    live.frozen(START + dt.timedelta(minutes=10))
    body = text_of(client.get(page))
    assert "Round ends 14:50, this table +3 min: 14:53" in body
    # Bad input changes nothing.
    client.post(extend_url(live.event, match), {"minutes": "0", "reason": "x"})
    client.post(extend_url(live.event, match), {"minutes": "3", "reason": ""})
    match.refresh_from_db()
    assert match.extra_minutes == 3


def test_extension_page_refused_for_player_and_outsider(client_for, live, organizer, outsider):
    start(live, organizer)
    match = Match.objects.filter(round=live.round).order_by("table").first()
    url = extend_url(live.event, match)
    data = {"minutes": "3", "reason": "Please"}
    for user in (outsider, match.player1.player):
        assert client_for(user).post(url, data).status_code == 403
    anonymous = client_for().post(url, data)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")
    match.refresh_from_db()
    assert match.extra_minutes == 0
    assert not AuditEntry.objects.filter(action="match.time_extended").exists()


def api_url(event, match):
    return f"/api/v1/events/{event.pk}/matches/{match.pk}/extend-time/"


def test_api_extend_time(client_for, live, organizer, judge, outsider):
    start(live, organizer)
    match = Match.objects.filter(round=live.round).order_by("table").first()
    url = api_url(live.event, match)
    body = {"minutes": 4, "reason": "Deck check"}
    for user in (outsider, match.player1.player):
        response = client_for(user).post(url, body, content_type="application/json")
        assert response.status_code == 403, user
    response = client_for(judge).post(url, body, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["extra_minutes"] == 4
    assert response.json()["id"] == match.pk
    bad = client_for(judge).post(
        url, {"minutes": 40, "reason": "x"}, content_type="application/json"
    )
    assert bad.status_code == 400
    match.refresh_from_db()
    assert match.extra_minutes == 4
    assert AuditEntry.objects.filter(action="match.time_extended").count() == 1
