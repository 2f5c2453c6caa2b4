"""Starting a job while the broker is down (#21): the request that starts it must not
fail. The job's row commits and stays pending; the watchdog sends it again later. Before
the fix, the on-commit send raised kombu's OperationalError (after its retries) into the
request: a 500 from the export page, the API and the admin's card import."""

from __future__ import annotations

import logging
import socket

import pytest
from kombu import pools as kombu_pools

from config.celery import app
from tests.decks import conftest as deck_fixtures
from tests.tournaments.factories import UserFactory, open_event, play_round, register_all
from tournaments import exports
from tournaments import services as tournament_services
from tournaments.models import ExportJob

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the block ends


@pytest.fixture
def unreachable_broker():
    saved = {
        key: app.conf[key]
        for key in ("task_always_eager", "broker_url", "broker_transport_options")
    }

    def drop() -> None:
        kombu_pools.reset()
        app._pool = None
        app.amqp._producer_pool = None

    drop()
    app.conf.update(
        task_always_eager=False,
        broker_url=f"redis://127.0.0.1:{closed_port()}/0",
        broker_transport_options={"max_retries": 1, "interval_start": 0, "interval_step": 0.1},
    )
    try:
        yield
    finally:
        drop()
        app.conf.update(saved)


def test_export_started_while_the_broker_is_down_is_left_pending_for_the_watchdog(
    crossover, unreachable_broker, caplog
):
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover)
    register_all(event, [UserFactory(username=f"player{n}") for n in range(1, 5)])
    tournament_services.start_event(event, actor=organizer)
    play_round(event, organizer)
    with caplog.at_level(logging.WARNING, logger="config.celery"):
        job = exports.start_export_job(
            organizer, event, kind="standings", file_format="csv", estimated_rows=4
        )
    job.refresh_from_db()
    assert job.status == ExportJob.Status.PENDING
    assert ExportJob.objects.count() == 1
    [record] = [r for r in caplog.records if r.name == "config.celery"]
    assert "tournaments.build_export" in record.getMessage()
    assert "broker cannot be reached" in record.getMessage()


def test_eager_mode_still_propagates_a_tasks_own_error(crossover, monkeypatch):
    """Without a broker the task runs in the request; its own failure is not swallowed."""

    def broken(job_id):
        raise RuntimeError(f"export {job_id} broke")

    monkeypatch.setattr(exports, "run_export_job", broken)
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover)
    register_all(event, [UserFactory(username=f"player{n}") for n in range(1, 5)])
    tournament_services.start_event(event, actor=organizer)
    play_round(event, organizer)
    with pytest.raises(RuntimeError, match="broke"):
        exports.start_export_job(
            organizer, event, kind="standings", file_format="csv", estimated_rows=4
        )
