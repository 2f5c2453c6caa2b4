"""Why this opponent: the page and the API explain a Swiss round's pairings from the
pairer's objective; staff always, players once published, outsiders refused."""

from dataclasses import asdict

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from tournaments import services
from tournaments.models import Round, RoundStatus
from tournaments.views_why import round_reasons

pytestmark = pytest.mark.django_db


def why_url(event, number):
    return reverse("tournaments:why_pairings", args=[event.pk, number])


def api_url(event, number):
    return f"/api/v1/events/{event.pk}/rounds/{number}/why/"


def page(client, user, event, number, language="en"):
    client.force_login(user)
    return client.get(why_url(event, number), HTTP_ACCEPT_LANGUAGE=language)


def test_why_page_staff_sees_summary_bye_and_groups(client, event_after_round_3):
    world = event_after_round_3
    round3 = Round.objects.get(event=world.event, number=3)
    response = page(client, world.judge, world.event, 3)
    assert response.status_code == 200
    text = response.content.decode()
    assert "These pairings are the best possible for these players" in text
    # Seven players after the drop: round 3 has a bye and its reason.
    bye = round3.matches.get(player2__isnull=True).player1
    name = bye.player.get_full_name() or bye.player.username
    assert f"{name} (" in text
    assert "has the bye" in text
    assert 'id="why-groups"' in text


def test_why_explanation_matches_the_pairers_stored_objective(event_after_round_3):
    world = event_after_round_3
    for number in (1, 2, 3):
        round_ = Round.objects.get(event=world.event, number=number)
        reasons = round_reasons(world.event, round_)
        assert reasons.explanation.optimal
        assert asdict(reasons.explanation.objective) == round_.pairing_info["objective"]
        assert asdict(reasons.explanation.lower_bound) == round_.pairing_info["lower_bound"]
        assert (
            len(reasons.explanation.tables) == round_.matches.filter(player2__isnull=False).count()
        )


def test_why_page_player_sees_own_table_of_a_published_round(client, event_after_round_3):
    world = event_after_round_3
    player, registration = world.players[0], world.registrations[0]
    response = page(client, player, world.event, 2)
    assert response.status_code == 200
    text = response.content.decode()
    assert "Your table" in text
    round2 = Round.objects.get(event=world.event, number=2)
    match = round2.matches.filter(Q(player1=registration) | Q(player2=registration)).get()
    assert f"Table {match.table}</strong>" in text


def test_why_page_in_japanese(client, event_after_round_3):
    world = event_after_round_3
    response = page(client, world.judge, world.event, 3, language="ja")
    assert response.status_code == 200
    text = response.content.decode()
    with translation.override("ja"):
        assert translation.gettext("Score groups") in text
    assert "Score groups" not in text


def test_why_page_draft_round_staff_only(client, event_after_round_3):
    world = event_after_round_3
    services.generate_round(world.event, actor=world.organizer)
    assert page(client, world.judge, world.event, 4).status_code == 200
    assert page(client, world.players[0], world.event, 4).status_code == 404
    assert page(client, world.organizer, world.event, 4).status_code == 200


def test_why_page_outsider_refused_and_anonymous_sent_to_log_in(
    client, event_after_round_3, outsider
):
    world = event_after_round_3
    assert page(client, outsider, world.event, 2).status_code == 403
    client.logout()
    response = client.get(why_url(world.event, 2))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_why_page_missing_round_is_404(client, event_after_round_3):
    world = event_after_round_3
    assert page(client, world.judge, world.event, 9).status_code == 404


def test_why_page_says_when_pairings_were_changed_by_hand(client, event_after_round_3):
    world = event_after_round_3
    round4 = services.generate_round(world.event, actor=world.organizer)
    tables = {m.table: (m.player1_id, m.player2_id) for m in round4.matches.all()}
    # Swap the second players of the top and bottom paired tables: floats the engine avoids.
    paired = sorted(t for t, (_a, b) in tables.items() if b is not None)
    top, bottom = paired[0], paired[-1]
    (a, b), (c, d) = tables[top], tables[bottom]
    services.edit_pairing(
        round4,
        actor=world.organizer,
        tables={top: (a, d), bottom: (c, b)},
        reason="Testing",
        allow_rematch=True,
    )
    reasons = round_reasons(world.event, Round.objects.get(pk=round4.pk))
    if reasons.explanation.optimal:
        pytest.skip("the swap happened to be as good (equal points)")
    response = page(client, world.judge, world.event, 4)
    text = response.content.decode()
    assert "These pairings were changed by hand" in text
    assert reasons.explanation.score_gap_over_optimum > 0


def test_why_page_queries_do_not_grow_with_tables(client, event_after_round_3):
    """Round 1 (four tables) and round 3 (three tables and a bye) cost the same."""
    world = event_after_round_3
    client.force_login(world.judge)
    counts = []
    for number in (1, 3):
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            assert client.get(why_url(world.event, number)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
    with CaptureQueriesContext(connection) as warm:
        assert client.get(why_url(world.event, 3)).status_code == 200
    assert len(warm) == counts[1] - 3  # the round, its tables and its history are cached


def test_why_links_from_pairings_page_and_dashboard(client, event_after_round_3):
    world = event_after_round_3
    client.force_login(world.players[0])
    pairings = client.get(reverse("tournaments:pairings", args=[world.event.pk, 2]))
    assert why_url(world.event, 2) in pairings.content.decode()
    client.force_login(world.organizer)
    dashboard = client.get(reverse("tournaments:dashboard", args=[world.event.pk]))
    assert why_url(world.event, 2) in dashboard.content.decode()


# --- API ----------------------------------------------------------------------------------


def api_get(user, event, number):
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api.get(api_url(event, number))


def test_why_api_answers_the_explanation(event_after_round_3):
    world = event_after_round_3
    response = api_get(world.players[1], world.event, 3)
    assert response.status_code == 200
    data = response.json()
    round3 = Round.objects.get(event=world.event, number=3)
    assert data["round"] == 3
    assert data["explained"] is True
    assert data["optimal"] is True
    assert data["objective"] == round3.pairing_info["objective"]
    bye = round3.matches.get(player2__isnull=True)
    assert data["bye"]["player"] == bye.player1_id
    assert data["bye"]["reason"] in {"lowest_eligible", "avoids_rematch"}
    assert {t["table"] for t in data["tables"]} == set(
        round3.matches.filter(player2__isnull=False).values_list("table", flat=True)
    )
    assert all(t["player1_name"] for t in data["tables"])


def test_why_api_permissions(event_after_round_3, outsider):
    world = event_after_round_3
    services.generate_round(world.event, actor=world.organizer)
    refused = api_get(outsider, world.event, 2)
    assert refused.status_code == 403
    assert refused.json()["code"] == "not_participant"
    anonymous = api_get(None, world.event, 2)
    assert anonymous.status_code == 403
    assert anonymous.json()["code"] == "not_authenticated"
    assert api_get(world.players[0], world.event, 4).status_code == 404
    assert api_get(world.judge, world.event, 4).status_code == 200
    assert api_get(world.judge, world.event, 7).status_code == 404


def test_why_api_queries_do_not_grow_with_tables(event_after_round_3):
    world = event_after_round_3
    counts = []
    for number in (1, 3):
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            assert api_get(world.judge, world.event, number).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_why_api_in_the_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/events/{event_pk}/rounds/{number}/why/"]["get"]
    assert {"200", "403", "404"} <= set(operation["responses"])
    assert operation["summary"].startswith("Why this opponent")


def test_why_page_top_cut_round_follows_the_seeds(client, event_after_round_3):
    world = event_after_round_3
    round_ = Round.objects.get(event=world.event, number=3)
    round_.stage = "top_cut"
    round_.save(update_fields=["stage"])
    cache.clear()
    response = page(client, world.judge, world.event, 3)
    assert "Top-cut pairings follow the seeds" in response.content.decode()
    assert round_.status == RoundStatus.CLOSED


def test_event_page_says_how_to_verify_the_event(client, event_after_round_3):
    world = event_after_round_3
    text = client.get(reverse("tournaments:event_detail", args=[world.event.pk])).content.decode()
    event_id = world.event.pk
    assert f"<code>python -m tournaments.engine.replay event-{event_id}.json</code>" in text
    verify = reverse("tournaments:event_verify", args=[event_id])
    assert f'<a href="{verify}">The event file and how to verify it</a>' in text
