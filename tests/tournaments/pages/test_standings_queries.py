"""The standings page runs the same number of queries for 10 and for 1,000 players (the
tiebreak working of every row is computed in memory)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.tournaments.api.bulk import played_event

pytestmark = pytest.mark.django_db


def test_standings_page_queries_same_for_10_and_1000_players(organizer, crossover, client_for):
    small = played_event(organizer, crossover, players=10, name="Ten")
    large = played_event(organizer, crossover, players=1000, name="Thousand")
    for user in (None, organizer):
        client = client_for(user)
        counts = []
        for event, players in ((small, 10), (large, 1000)):
            with CaptureQueriesContext(connection) as queries:
                response = client.get(reverse("tournaments:standings", args=[event.pk]))
            assert response.status_code == 200
            body = response.content.decode()
            assert body.count('<tr id="player-') == players
            assert "After 3 Swiss rounds." in body
            counts.append(len(queries))
        assert counts[0] == counts[1], (user, counts)
        assert counts[0] <= 7, counts


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
