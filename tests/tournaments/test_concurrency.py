"""Concurrent submissions never corrupt anything (checklist B1, B4, B5).

Real threads, each with its own database connection, released together by a
``threading.Barrier``; the tests are transactional so that every thread sees committed
rows. They pass on SQLite (``BEGIN IMMEDIATE`` serialises writers, config/env.py) and on
PostgreSQL (``SELECT … FOR UPDATE`` plus the version compare-and-swap).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from tournaments import services
from tournaments.models import AuditEntry, Match, Registration, ResultReport, Round

from .factories import UserFactory, games_for, open_event, play_round, register_all

pytestmark = pytest.mark.django_db(transaction=True)

RECORDS = ["2-0", "2-1", "0-2", "1-2", "1-1-1", "1-0-1", "0-0-3"]


def connection_budget(wanted: int) -> int:
    """How many threads may hold a connection at once: all of them on SQLite; on
    PostgreSQL what ``max_connections`` leaves free (its default is 100, and the server
    may be shared), with a margin."""
    if connection.vendor != "postgresql":
        return wanted
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('max_connections')::int"
            " - (SELECT count(*) FROM pg_stat_activity)"
        )
        free = cursor.fetchone()[0]
    return max(2, min(wanted, free - 5))


def run_together(count: int, work) -> list[tuple[str, object]]:
    """Run ``work(i)`` in ``count`` threads released at once; return ("ok", result) or
    ("error", exception) per thread, in thread order."""
    barrier = threading.Barrier(count)
    seats = threading.BoundedSemaphore(connection_budget(count))
    outcomes: list[tuple[str, object]] = [("missing", None)] * count

    def runner(index: int) -> None:
        try:
            barrier.wait(timeout=60)
            with seats:
                try:
                    outcomes[index] = ("ok", work(index))
                finally:
                    connections.close_all()
        except Exception as exc:
            outcomes[index] = ("error", exc)

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def errors(outcomes) -> list[tuple[type, str]]:
    return sorted(
        (type(result).__name__, getattr(result, "code", repr(result)))
        for status, result in outcomes
        if status == "error"
    )


@pytest.fixture
def published_match(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=2)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    return Match.objects.select_related("player1__player", "player2__player").get(round=round_)


def test_100_conflicting_reports_leave_one_result_and_one_audit_entry(published_match):
    match = published_match
    players = [match.player1.player, match.player2.player]
    audit_before = AuditEntry.objects.count()

    def report(index: int):
        return services.report_result(
            Match.objects.get(pk=match.pk),
            actor=players[index % 2],
            games=games_for(RECORDS[index % len(RECORDS)]),
            expected_version=1,
        )

    outcomes = run_together(100, report)
    winners = [result for status, result in outcomes if status == "ok"]
    assert len(winners) == 1
    assert errors(outcomes) == [("Conflict", "stale_version")] * 99
    stored = Match.objects.get(pk=match.pk)
    assert stored.version == 2
    assert stored.status == "reported"
    assert stored.record_text == winners[0].record_text
    assert stored.reported_by_id == winners[0].reported_by_id
    assert ResultReport.objects.filter(match=match).count() == 1
    assert AuditEntry.objects.count() == audit_before + 1
    assert AuditEntry.objects.filter(object_type="match", object_id=match.pk).count() == 1


def test_confirm_and_override_racing_store_one_of_them(published_match, organizer):
    match = published_match
    services.report_result(
        match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
    )

    def answer(index: int):
        current = Match.objects.get(pk=match.pk)
        if index % 2:
            return services.confirm_result(current, actor=match.player2.player, expected_version=2)
        return services.override_result(
            current, actor=organizer, expected_version=2, record="0-2", reason="slip"
        )

    outcomes = run_together(10, answer)
    assert sum(status == "ok" for status, _ in outcomes) == 1
    assert errors(outcomes) == [("Conflict", "stale_version")] * 9
    assert Match.objects.get(pk=match.pk).version == 3
    assert ResultReport.objects.filter(match=match).count() == 2
    assert AuditEntry.objects.filter(object_type="match", object_id=match.pk).count() == 2


@pytest.fixture
def one_seat_left(organizer, crossover, make_players):
    event = open_event(organizer, crossover, capacity=5)
    register_all(event, make_players(4))
    return event


def test_20_registrations_for_the_last_seat_admit_one(one_seat_left):
    event = one_seat_left
    hopefuls = [UserFactory(username=f"hopeful{n:02d}") for n in range(20)]

    def register(index: int):
        return services.register_player(event, actor=hopefuls[index], join_waitlist=False)

    outcomes = run_together(20, register)
    assert sum(status == "ok" for status, _ in outcomes) == 1
    assert errors(outcomes) == [("CapacityFull", "capacity_full")] * 19
    assert Registration.objects.filter(event=event, status="registered").count() == 5
    assert Registration.objects.filter(event=event).count() == 5
    assert AuditEntry.objects.filter(action="registration.created").count() == 5


def test_20_registrations_for_the_last_seat_waitlist_the_others(one_seat_left):
    event = one_seat_left
    hopefuls = [UserFactory(username=f"hopeful{n:02d}") for n in range(20)]

    def register(index: int):
        return services.register_player(event, actor=hopefuls[index])

    outcomes = run_together(20, register)
    assert errors(outcomes) == []
    statuses = [result.status for _, result in outcomes]
    assert statuses.count("registered") == 1
    assert statuses.count("waitlisted") == 19
    assert Registration.objects.filter(event=event, status="registered").count() == 5


def test_20_identical_registrations_store_one_row(one_seat_left):
    event = one_seat_left
    player = UserFactory(username="eager")

    outcomes = run_together(20, lambda index: services.register_player(event, actor=player))
    assert sum(status == "ok" for status, _ in outcomes) == 1
    assert errors(outcomes) == [("Conflict", "already_registered")] * 19
    assert Registration.objects.filter(event=event, player=player).count() == 1


def test_concurrent_round_generation_creates_one_round(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=3)
    register_all(event, make_players(6))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)

    outcomes = run_together(8, lambda index: services.generate_round(event, actor=organizer))
    assert sum(status == "ok" for status, _ in outcomes) == 1
    assert errors(outcomes) == [("InvalidState", "previous_round_open")] * 7
    assert Round.objects.filter(event=event).count() == 2
    assert Match.objects.filter(round__number=2).count() == 3
    assert AuditEntry.objects.filter(action="round.generated").count() == 2


def test_closing_a_round_while_its_last_result_is_confirmed(organizer, crossover, make_players):
    """Close and the last confirmation race: either the round closes with the result
    confirmed, or the close is refused (result missing); never a deadlock or an error.
    (On PostgreSQL the event lock must not block the audit row's foreign-key check.)"""
    event = open_event(organizer, crossover, swiss_rounds=3)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    for attempt in range(3):
        round_ = services.generate_round(event, actor=organizer)
        services.publish_round(round_, actor=organizer)
        first, last = Match.objects.filter(round=round_).select_related(
            "player1__player", "player2__player"
        )
        for match in (first, last):
            services.report_result(
                match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
            )
        services.confirm_result(first, actor=first.player2.player, expected_version=2)

        def race(index: int, round_=round_, last=last):
            if index == 0:
                return services.confirm_result(
                    Match.objects.get(pk=last.pk), actor=last.player2.player, expected_version=2
                )
            return services.close_round(Round.objects.get(pk=round_.pk), actor=organizer)

        outcomes = run_together(2, race)
        assert outcomes[0][0] == "ok", outcomes
        assert errors(outcomes) in ([], [("InvalidState", "results_missing")]), attempt
        if outcomes[1][0] == "error":
            services.close_round(round_, actor=organizer)
        assert Round.objects.get(pk=round_.pk).status == "closed"
