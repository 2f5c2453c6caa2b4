"""A card import and an export whose Celery worker is killed (kill -9) mid-job complete
once, on Redis and on RabbitMQ, within a minute of the restart (issue #15).

A real prefork worker with two pool children runs an import of tens of thousands of rows
and a decklists export of tens of thousands of rows at the same time, each several
seconds of work. The test kills both pool children, or the whole worker with its children
(and starts another), once both jobs are running. Neither job may have written anything
then (an import writes its rows and is marked done in one transaction; an export stores
its file with its outcome). After the restart each must complete once, with exactly the
rows (and report) or the file of a run without a fault. How a job comes back: see
tests.worker_kill and the README ("Celery").
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from cardpool import services as cardpool_services
from cardpool.models import ImportJob
from tests import test_celery_worker as worker_tests
from tests import worker_kill
from tests.decks import conftest as deck_fixtures
from tests.test_celery_worker import WORKER_READY_TIMEOUT, Worker
from tests.test_job_once_15 import (
    event_with_decklists,
    export_without_a_fault,
    game_rows,
    import_without_a_fault,
    new_game,
)
from tests.worker_kill import (
    RESUME_TIMEOUT,
    kill_group,
    kill_pool_children,
    wait_until_finished,
    wait_until_started,
)
from tournaments import exports
from tournaments.models import ExportJob

broker = worker_tests.broker  # Redis and RabbitMQ
jobs_queue = worker_kill.jobs_queue
start_worker = worker_kill.start_worker
sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

# worker_kill: .ci/run runs these beside the two suites (mostly waiting on workers).
pytestmark = [
    pytest.mark.services,
    pytest.mark.worker_kill,
    pytest.mark.django_db(transaction=True),
]

CARDS = 15_000  # rows of the card file (a card and its printing each)
PLAYERS = 12_000  # decklists in the export (three rows each)
# Both jobs run this long before the kill: mid-job, several seconds before their end.
RUNNING_BEFORE_THE_KILL = 0.3
IMPORT_TASK = "cardpool.import_card_file"
EXPORT_TASK = "tournaments.build_export"

# What a run without a fault gives (see compute_without_a_fault).
_without_a_fault: dict[str, object] = {}


def card_file() -> bytes:
    lines = ["name,set,card_type,number,rarity,text"]
    lines += [
        f"試験カード{n:05d},base,CHARACTER,T-{n:05d},{'RC'[n % 2]},効果{n}" for n in range(CARDS)
    ]
    return "\n".join(lines).encode("utf-8")


def start_jobs(worker: Worker, fmt) -> list:
    """While ``worker`` starts, the import's game and an event with PLAYERS decklists;
    then, once it is ready, queue the import and the export (sent to the broker at once:
    autocommit). Returns the two jobs."""
    game = new_game("kill-test")
    event, organizer = event_with_decklists(fmt, PLAYERS)
    worker.wait_ready(WORKER_READY_TIMEOUT)
    import_job = cardpool_services.create_import_job(
        game=game, filename="cards.csv", content=card_file()
    )
    export_job = exports.start_export_job(
        organizer, event, kind="decklists", file_format="csv", estimated_rows=3 * PLAYERS
    )
    return [import_job, export_job]


def kill_once_running(kill: Callable[[], None], workers: list[Worker], jobs: list) -> float:
    """Once both jobs have run for RUNNING_BEFORE_THE_KILL, ``kill()``; then check that
    neither has written anything. Returns the time of the kill (``time.monotonic()``)."""
    wait_until_started(jobs, workers, claimed)
    time.sleep(RUNNING_BEFORE_THE_KILL)
    kill()
    killed_at = time.monotonic()
    for job in jobs:
        job.refresh_from_db()
    assert_nothing_written(jobs)
    return killed_at


def compute_without_a_fault(export_job: ExportJob) -> None:
    """What a run without a fault gives (once per test session: the input is the same),
    computed here while the jobs wait for their lease to run out."""
    if not _without_a_fault:
        _without_a_fault["import"] = import_without_a_fault(card_file())
        _without_a_fault["export"] = export_without_a_fault(export_job)


def claimed(job) -> bool:
    return job.status == job.Status.RUNNING


def assert_nothing_written(jobs: list) -> None:
    import_job, export_job = jobs
    assert game_rows(import_job.game) == ([], [])
    assert (import_job.status, import_job.report) == (ImportJob.Status.RUNNING, {})
    assert export_job.status == ExportJob.Status.RUNNING
    assert ExportJob.objects.filter(pk=export_job.pk, content__isnull=True).exists()


def assert_completed_once(jobs: list) -> None:
    import_job, export_job = jobs
    assert import_job.status == ImportJob.Status.DONE, import_job.report
    assert (import_job.done, import_job.total) == (CARDS, CARDS)
    report, rows = _without_a_fault["import"]
    assert import_job.report == report
    assert report["cards_created"] == CARDS  # written once, not "unchanged"
    assert game_rows(import_job.game) == rows

    assert export_job.status == ExportJob.Status.DONE, export_job.error
    assert export_job.done == export_job.total == 3 * PLAYERS
    content = exports.job_file(export_job).content
    assert content.count(b"\r\n") == 3 * PLAYERS + 1
    assert content == _without_a_fault["export"]


def ran_in(worker, task: str) -> bool:
    return f"Task {task}[" in worker.log()


def report_time(request, what: str, took: float) -> None:
    """Shown with -s (or in the report of a failure): the measured redelivery time."""
    print(f"\n[resume] {request.node.name}: {what} {took:.1f}s")


def test_import_and_export_resume_after_the_whole_worker_is_killed(
    crossover, start_worker, broker, request
):
    first = start_worker("first", concurrency=2, ready=False)
    jobs = start_jobs(first, crossover)
    # kill -9 of the worker and both pool children
    kill_once_running(lambda: kill_group(first), [first], jobs)

    second = start_worker("second", concurrency=2)
    ready_at = time.monotonic()
    compute_without_a_fault(jobs[1])
    # Only Redis needs beat's watchdog: RabbitMQ gives the tasks to the second worker.
    watchdog = broker.service == "Redis"
    took = wait_until_finished(jobs, [first, second], watchdog=watchdog, since=ready_at)
    report_time(request, "both jobs done, after the second worker was ready, in", took)
    assert took < RESUME_TIMEOUT
    assert ran_in(second, IMPORT_TASK), second.output()
    assert ran_in(second, EXPORT_TASK), second.output()
    assert_completed_once(jobs)


def test_import_and_export_resume_after_their_pool_children_are_killed(
    crossover, start_worker, request
):
    worker = start_worker("only", concurrency=2, ready=False)
    jobs = start_jobs(worker, crossover)
    killed_at = kill_once_running(lambda: kill_pool_children(worker, 2), [worker], jobs)

    compute_without_a_fault(jobs[1])
    took = wait_until_finished(jobs, [worker], watchdog=False, since=killed_at)
    report_time(request, "both jobs done, after the kill, in", took)
    assert took < RESUME_TIMEOUT
    assert worker.process.poll() is None  # the worker itself lives on with new children
    assert_completed_once(jobs)
