"""Staff pages: dashboard, round actions (POST forms calling the services), round clock."""

import pytest
from django.urls import reverse

from tests.tournaments.factories import new_event, open_event, register_all
from tournaments import services
from tournaments.models import AuditEntry, Round, RoundStatus

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return response.content.decode()


def staff_urls(event, number=1):
    return {
        "dashboard": reverse("tournaments:dashboard", args=[event.pk]),
        "round_clock": reverse("tournaments:round_clock", args=[event.pk, number]),
        "round_clock_fragment": reverse(
            "tournaments:round_clock_fragment", args=[event.pk, number]
        ),
    }


def post_urls(event, number=1):
    return {
        "generate": reverse("tournaments:generate_round", args=[event.pk]),
        "publish": reverse("tournaments:round_action", args=[event.pk, number, "publish"]),
        "start": reverse("tournaments:round_action", args=[event.pk, number, "start"]),
        "close": reverse("tournaments:round_action", args=[event.pk, number, "close"]),
    }


def test_dashboard_for_organizer_and_judge(client_for, event_after_round_3, judge):
    fixture = event_after_round_3
    event = fixture.event
    for user in (fixture.organizer, judge):
        response = client_for(user).get(reverse("tournaments:dashboard", args=[event.pk]))
        assert response.status_code == 200
        body = text_of(response)
        assert "<h1>Staff dashboard: Spring Open</h1>" in body
        assert '<td class="row-title">player008</td>' in body
        assert "Dropped (after round 2)" in body
        assert "<td>player001</td><td>Warning</td><td>Slow play</td>" in body
        assert "<strong>Warning for player001</strong>" in body
        assert "Nothing outstanding." in body
    organizer_body = text_of(
        client_for(fixture.organizer).get(reverse("tournaments:dashboard", args=[event.pk]))
    )
    assert ">Generate round 4</button>" in organizer_body
    judge_body = text_of(client_for(judge).get(reverse("tournaments:dashboard", args=[event.pk])))
    assert "Generate round 4" not in judge_body


@pytest.mark.parametrize("name", ["dashboard"])
def test_staff_pages_forbidden_for_outsider_and_player(
    client_for, event_after_round_3, outsider, name
):
    event = event_after_round_3.event
    url = staff_urls(event)[name]
    assert client_for(outsider).get(url).status_code == 403
    assert client_for(event_after_round_3.players[0]).get(url).status_code == 403
    anonymous = client_for().get(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"


@pytest.mark.parametrize("name", ["dashboard", "round_clock", "round_clock_fragment"])
def test_staff_pages_of_private_event_are_404(client_for, organizer, crossover, outsider, name):
    event = new_event(organizer, crossover)
    url = staff_urls(event)[name]
    assert client_for(outsider).get(url).status_code == 404


@pytest.mark.parametrize("name", ["generate", "publish", "start", "close"])
def test_round_posts_forbidden_for_outsider_judge_and_404_when_private(
    client_for, event_after_round_3, outsider, judge, organizer, crossover, name
):
    event = event_after_round_3.event
    before = AuditEntry.objects.count()
    url = post_urls(event)[name]
    assert client_for(outsider).post(url).status_code == 403
    assert client_for(judge).post(url).status_code == 403
    assert client_for(event_after_round_3.players[0]).post(url).status_code == 403
    assert client_for().post(url).status_code == 302
    private = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).post(post_urls(private)[name]).status_code == 404
    assert AuditEntry.objects.count() == before + 1  # only the private event's creation


def test_round_lifecycle_through_dashboard(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    client = client_for(organizer)
    dashboard = reverse("tournaments:dashboard", args=[event.pk])
    urls = post_urls(event)

    response = client.post(urls["generate"])
    assert response.status_code == 302
    assert response["Location"] == dashboard
    round_ = Round.objects.get(event=event, number=1)
    assert round_.status == RoundStatus.DRAFT
    assert AuditEntry.objects.filter(action="round.generated", object_id=round_.pk).count() == 1
    body = text_of(client.get(dashboard))
    assert "Round 1 generated: review and publish it." in body
    assert urls["publish"] in body

    client.post(urls["publish"])
    round_.refresh_from_db()
    assert round_.status == RoundStatus.PUBLISHED
    assert AuditEntry.objects.filter(action="round.published", object_id=round_.pk).count() == 1

    client.post(urls["start"])
    round_.refresh_from_db()
    assert round_.status == RoundStatus.RUNNING
    assert AuditEntry.objects.filter(action="round.clock_started", object_id=round_.pk).count() == 1
    body = text_of(client.get(dashboard))
    first = round_.matches.order_by("table").first()
    assert (
        f'<td class="row-title">Table 1</td>\n    <td data-label="Players">'
        f"{first.player1.player.username} – {first.player2.player.username}</td>" in body
    )
    assert body.count("Waiting for a result") == 2
    assert reverse("tournaments:round_clock", args=[event.pk, 1]) in body

    # closing with results missing: the service refuses, the message is shown
    response = client.post(urls["close"], follow=True)
    assert "Some matches have no final result yet." in text_of(response)
    round_.refresh_from_db()
    assert round_.status == RoundStatus.RUNNING
    assert not AuditEntry.objects.filter(action="round.closed").exists()


def test_unknown_round_action_is_404(client_for, event_after_round_3, organizer):
    # Only the known actions resolve (a slug there would swallow other pages' paths).
    url = f"/events/{event_after_round_3.event.pk}/staff/rounds/1/explode/"
    assert client_for(organizer).post(url).status_code == 404


# The round clock is public since issue 11: tests/tournaments/pages/test_live.py.


def test_dashboard_query_count_is_the_same_small_and_large(
    client_for, organizer, crossover, make_players, django_assert_num_queries
):
    counts = []
    for count, prefix in ((2, "small"), (8, "large")):
        event = open_event(organizer, crossover, name=prefix)
        register_all(event, make_players(count, prefix=prefix))
        services.start_event(event, actor=organizer)
        services.publish_round(services.generate_round(event, actor=organizer), actor=organizer)
        client = client_for(organizer)
        url = reverse("tournaments:dashboard", args=[event.pk])
        client.get(url)  # warm the session
        # session, user, event, staff row, registration, rounds, outstanding, players
        # (count, page), penalties, audit log
        with django_assert_num_queries(11) as captured:
            assert client.get(url).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]
