"""The standings page runs the same number of queries for 10 and for 1,000 players, and
once the standings are cached a request is one query (the event with the viewer's access
and revision) whatever the size of the event."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.tournaments.api.bulk import played_event

pytestmark = pytest.mark.django_db


def _get(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def test_standings_page_queries_same_for_10_and_1000_players(organizer, crossover, client_for):
    small = played_event(organizer, crossover, players=10, name="Ten")
    large = played_event(organizer, crossover, players=1000, name="Thousand")
    for user in (None, organizer):
        client = client_for(user)
        # a signed-in viewer costs the session and the user first
        viewer = 0 if user is None else 2
        for event, players in ((small, 10), (large, 1000)):
            url = reverse("tournaments:standings", args=[event.pk])
            body, cold = _get(client, url)
            # 200 rows a page
            assert body.count('<tr id="player-') == min(players, 200)
            assert "After 3 Swiss rounds." in body
            # the event (one query), then the standings (registrations and results) for
            # the first viewer only: the second finds them cached
            assert cold == viewer + (3 if user is None else 1), (user, players, cold)
            body, warm = _get(client, url)
            assert warm == viewer + 1, (user, players, warm)
        last = reverse("tournaments:standings", args=[large.pk]) + "?page=5"
        body, _ = _get(client, last)
        assert body.count('<tr id="player-') == 200
        assert "Page 5 of 5 (rows 801–1000 of 1000)" in body


def test_standings_working_queries_same_for_10_and_1000_players(organizer, crossover, client_for):
    small = played_event(organizer, crossover, players=10, name="Ten")
    large = played_event(organizer, crossover, players=1000, name="Thousand")
    client = client_for()
    counts = []
    for event in (small, large):
        leader = event.registrations.order_by("pk").first()
        url = reverse("tournaments:standings_working", args=[event.pk, leader.pk])
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        assert "<dt>Rounds played</dt><dd>3</dd>" in response.content.decode()
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
