"""Every list endpoint runs the same number of queries for a small and a larger event."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.tournaments.factories import open_event, play_round, register_all
from tournaments import services

from .helpers import API


def played_event(organizer, fmt, players, name):
    event = open_event(organizer, fmt, name=name, capacity=32)
    register_all(event, players)
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    event.refresh_from_db()
    return event


def count(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


PATHS = ("registrations/", "rounds/", "rounds/1/pairings/", "standings/", "")


def test_list_queries_do_not_grow(organizer, crossover, make_players, client_for):
    small = played_event(organizer, crossover, make_players(4, "small"), "Small")
    large = played_event(organizer, crossover, make_players(20, "large"), "Large")
    for user in (None, organizer):
        client = client_for(user)
        for path in PATHS:
            small_count = count(client, f"{API}/{small.pk}/{path}")
            large_count = count(client, f"{API}/{large.pk}/{path}")
            assert small_count == large_count, (path, user)
            assert small_count <= 8, (path, small_count)


def test_event_list_queries_do_not_grow(organizer, crossover, make_players, client_for):
    client = client_for(organizer)
    open_event(organizer, crossover, name="One")
    one = count(client, f"{API}/")
    for n in range(5):
        open_event(organizer, crossover, name=f"More {n}")
    assert count(client, f"{API}/") == one
