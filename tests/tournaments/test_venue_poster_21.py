"""Who may print the venue poster, which shows the server's LAN addresses (issue #21):
anyone could make a draft event and so open it. Now a superuser, or the organizer or
a staff member of an event under way (registration open, Swiss rounds, top cut)."""

from __future__ import annotations

import pytest

from tournaments import services
from tournaments.models import Event, EventState, StaffRole

from .factories import UserFactory, new_event, open_event

pytestmark = pytest.mark.django_db

URL = "/venue/poster/"


def in_state(event, state) -> Event:
    """The event moved to ``state`` (the states' own rules are tested elsewhere; here only
    who may print the poster in each)."""
    Event.objects.filter(pk=event.pk).update(state=state)
    event.refresh_from_db()
    return event


def test_organizer_of_a_draft_event_is_refused(client, organizer, crossover):
    new_event(organizer, crossover)
    client.force_login(organizer)
    response = client.get(URL, HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 403
    assert b"data-url=" not in response.content


def test_staff_of_a_draft_event_are_refused(client, organizer, co_organizer, judge, crossover):
    event = new_event(organizer, crossover)
    services.add_staff(event, actor=organizer, user=co_organizer, role=StaffRole.CO_ORGANIZER)
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    for user in (co_organizer, judge):
        client.force_login(user)
        assert client.get(URL).status_code == 403


@pytest.mark.parametrize(
    ("state", "status"),
    [
        (EventState.DRAFT, 403),
        (EventState.REGISTRATION_OPEN, 200),
        (EventState.RUNNING, 200),
        (EventState.TOP_CUT, 200),
        (EventState.FINISHED, 403),
    ],
)
def test_organizer_and_judge_by_the_events_state(
    client, organizer, judge, crossover, state, status
):
    event = open_event(organizer, crossover)
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    in_state(event, state)
    for user in (organizer, judge):
        client.force_login(user)
        assert client.get(URL).status_code == status, user


def test_one_event_under_way_is_enough(client, organizer, crossover):
    new_event(organizer, crossover, name="Draft Cup")
    in_state(open_event(organizer, crossover, name="Old Cup"), EventState.FINISHED)
    client.force_login(organizer)
    assert client.get(URL).status_code == 403
    open_event(organizer, crossover, name="Live Cup")
    assert client.get(URL).status_code == 200


def test_a_player_of_an_event_under_way_is_refused(client, organizer, crossover, make_players):
    event = open_event(organizer, crossover)
    (player,) = make_players(1)
    services.register_player(event, actor=player)
    client.force_login(player)
    assert client.get(URL).status_code == 403


def test_superuser_without_any_event_may(client):
    client.force_login(UserFactory(username="root", is_superuser=True))
    assert client.get(URL).status_code == 200


def test_outsider_is_refused(client, outsider, organizer, crossover):
    open_event(organizer, crossover)
    client.force_login(outsider)
    assert client.get(URL).status_code == 403


@pytest.mark.parametrize(
    ("state", "linked"),
    [
        (EventState.DRAFT, False),
        (EventState.REGISTRATION_OPEN, True),
        (EventState.RUNNING, True),
        (EventState.FINISHED, False),
    ],
)
def test_staff_pages_link_the_poster_only_while_it_opens(
    client, organizer, crossover, state, linked
):
    event = in_state(open_event(organizer, crossover), state)
    client.force_login(organizer)
    page = client.get(f"/events/{event.pk}/staff/audit/")
    assert page.status_code == 200
    assert (f'href="{URL}"' in page.content.decode()) is linked
