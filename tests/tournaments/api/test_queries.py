"""Every list endpoint runs the same number of queries for a small and a larger event; the
standings the same for 10 and for 1,000 players."""

from itertools import cycle

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.tournaments.factories import UserFactory, open_event, play_round, register_all
from tournaments import services
from tournaments.models import EventStaff, Registration, StaffRole

from . import bulk
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


# --- the lists added with the staff's endpoints ----------------------------------------


def staffed_played_event(organizer, fmt, players, name, *, staff, penalties):
    """``played_event`` with ``staff`` judges/co-organizers and ``penalties`` warnings."""
    event = played_event(organizer, fmt, players, name)
    roles = cycle((StaffRole.JUDGE, StaffRole.CO_ORGANIZER))
    for n in range(staff):
        user = UserFactory(username=f"{name.lower()}-staff{n}")
        services.add_staff(event, actor=organizer, user=user, role=next(roles))
    registrations = Registration.objects.filter(event=event).order_by("pk")
    for registration in registrations[:penalties]:
        services.issue_penalty(registration, actor=organizer, kind="warning", infraction="Slow")
    return event


NEW_PATHS = ("penalties/", "decklists/", "staff/", "audit/")


def test_new_list_queries_do_not_grow(organizer, crossover, make_players, client_for):
    small_players, large_players = make_players(4, "small"), make_players(20, "large")
    small = staffed_played_event(organizer, crossover, small_players, "Small", staff=1, penalties=1)
    large = staffed_played_event(organizer, crossover, large_players, "Large", staff=4, penalties=6)
    judge_small = EventStaff.objects.filter(event=small, role=StaffRole.JUDGE).first().user
    judge_large = EventStaff.objects.filter(event=large, role=StaffRole.JUDGE).first().user
    organizer_client = client_for(organizer)
    for path in NEW_PATHS:
        small_count = count(organizer_client, f"{API}/{small.pk}/{path}")
        large_count = count(organizer_client, f"{API}/{large.pk}/{path}")
        assert small_count == large_count, path
        assert small_count <= 8, (path, small_count)
        judge_counts = (
            count(client_for(judge_small), f"{API}/{small.pk}/{path}"),
            count(client_for(judge_large), f"{API}/{large.pk}/{path}"),
        )
        assert judge_counts[0] == judge_counts[1], path
    # A player sees their own penalty and decklist; anyone else, none of either.
    for path in ("penalties/", "decklists/"):
        counts = [
            count(client_for(user), f"{API}/{event.pk}/{path}")
            for user, event in ((small_players[0], small), (large_players[0], large))
        ]
        assert counts[0] == counts[1], (path, counts)
        anonymous = [count(client_for(), f"{API}/{event.pk}/{path}") for event in (small, large)]
        assert anonymous[0] == anonymous[1], (path, anonymous)


# --- standings: 10 and 1,000 players ---------------------------------------------------


def test_standings_queries_same_for_10_and_1000_players(organizer, crossover, client_for):
    small = bulk.played_event(organizer, crossover, players=10, name="Ten")
    large = bulk.played_event(organizer, crossover, players=1000, name="Thousand")
    for user in (None, organizer):
        client = client_for(user)
        viewer = 0 if user is None else 2  # session and user
        for event, players in ((small, 10), (large, 1000)):
            url = f"{API}/{event.pk}/standings/"
            for query in ("", "?page_size=all"):
                with CaptureQueriesContext(connection) as queries:
                    response = client.get(url + query)
                assert response.status_code == 200
                body = response.json()
                rows = players if query else min(players, 200)
                assert (body["rounds"], body["count"], len(body["rows"])) == (3, players, rows)
                assert [row["rank"] for row in body["rows"]][:2] == [1, 2]
                # The event; then, for the first request after a change only, the
                # registrations and the results (the next requests find them cached).
                first = user is None and query == ""
                assert len(queries) == viewer + (3 if first else 1), (user, players, query)
