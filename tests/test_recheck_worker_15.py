"""A ban-list re-check whose Celery worker is killed (kill -9) mid-job completes once, on
Redis and on RabbitMQ, within a minute (issue #15).

A real worker subprocess (prefork, one child) runs the re-check of a few thousand decks; the
test kills the pool child, or the whole worker with its children, once some decks are done,
and (for the whole worker) starts another. A killed pool child's task is requeued at once
and RabbitMQ redelivers a dead worker's task in seconds: the task finds the job's heartbeat
still fresh and looks again once the lease has run out. Redis keeps a dead worker's task
until its visibility timeout: there the test process plays Celery beat's watchdog
(tests.worker_kill). The result must be exactly one row per deck at the new version and
the same list of decks that became illegal as a run without a fault.
"""

from __future__ import annotations

import pytest

from decks import services
from decks.models import BanEntry, Deck, DeckCheck, DeckEntry, RecheckJob
from tests import test_celery_worker as worker_tests
from tests import worker_kill
from tests.decks import conftest as deck_fixtures
from tests.worker_kill import (
    RESUME_TIMEOUT,
    kill_group,
    kill_pool_children,
    wait_until_finished,
    wait_until_started,
)

broker = worker_tests.broker  # Redis and RabbitMQ
jobs_queue = worker_kill.jobs_queue
start_worker = worker_kill.start_worker
sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover
player = deck_fixtures.player

# worker_kill: .ci/run runs these beside the two suites (mostly waiting on workers).
pytestmark = [
    pytest.mark.services,
    pytest.mark.worker_kill,
    pytest.mark.django_db(transaction=True),
]

DECKS = 6000
CLEAN_DECK = "4 狡猾フィーリア [base]\n46 スワティ\n"


@pytest.fixture
def many_decks(crossover, player, cards):
    """DECKS decks, every other one with 森原 さとみ (legal at version 1), then the ban."""
    template_banned, _ = services.save_deck(
        owner=player, fmt=crossover, name="t0", text=deck_fixtures.LEGAL_DECK
    )
    template_clean, _ = services.save_deck(owner=player, fmt=crossover, name="t1", text=CLEAN_DECK)
    templates = [list(template_banned.entries.all()), list(template_clean.entries.all())]
    decks = Deck.objects.bulk_create(
        Deck(owner=player, format=crossover, name=f"deck {n}") for n in range(DECKS - 2)
    )
    DeckEntry.objects.bulk_create(
        DeckEntry(
            deck=deck,
            card_id=entry.card_id,
            printing_set_id=entry.printing_set_id,
            count=entry.count,
            section=entry.section,
            position=entry.position,
        )
        for n, deck in enumerate(decks)
        for entry in templates[n % 2]
    )
    first = template_banned.checks.get()
    DeckCheck.objects.bulk_create(
        DeckCheck(
            deck=deck,
            format_version=1,
            as_of=first.as_of,
            legal=True,
            report=first.report,
        )
        for deck in decks
    )
    BanEntry.objects.create(format=crossover, card=cards["satomi"])
    return crossover


def recheck_rows() -> list[int]:
    return sorted(DeckCheck.objects.filter(format_version=2).values_list("deck_id", flat=True))


def some_done(job: RecheckJob) -> bool:
    return job.done > 0


def became_illegal_without_a_fault(fmt) -> list[dict]:
    """What an uninterrupted run (in this process) lists for the same decks."""
    DeckCheck.objects.filter(format_version=2).delete()
    job = RecheckJob.objects.create(format=fmt, format_version=2, reason="no fault")
    services.run_recheck(job.pk)
    job.refresh_from_db()
    return job.became_illegal


def assert_completed_once(job: RecheckJob, fmt) -> None:
    deck_ids = sorted(Deck.objects.filter(format=fmt).values_list("id", flat=True))
    assert job.status == RecheckJob.Status.DONE, job.error
    assert (job.done, job.total) == (DECKS, DECKS)
    assert recheck_rows() == deck_ids  # exactly one row per deck at version 2
    assert len(job.became_illegal) == DECKS // 2
    assert job.became_illegal == became_illegal_without_a_fault(fmt)


def test_recheck_resumes_after_the_whole_worker_is_killed(many_decks, start_worker, broker):
    first = start_worker("first")
    job = services.format_changed(many_decks, reason="ban: 森原 さとみ")
    wait_until_started([job], [first], some_done)
    kill_group(first)  # kill -9 of the worker and its pool child
    stored = len(recheck_rows())
    assert 0 < stored < DECKS

    second = start_worker("second")
    # Only Redis needs beat's watchdog: RabbitMQ gives the task to the second worker.
    watchdog = broker.service == "Redis"
    took = wait_until_finished([job], [first, second], watchdog=watchdog)
    job.refresh_from_db()
    assert took < RESUME_TIMEOUT
    assert "Task decks.recheck_format_decks[" in second.log(), second.output()
    assert_completed_once(job, many_decks)


def test_recheck_resumes_after_the_pool_child_is_killed(many_decks, start_worker):
    worker = start_worker("only")
    job = services.format_changed(many_decks, reason="ban: 森原 さとみ")
    wait_until_started([job], [worker], some_done)
    kill_pool_children(worker, 1)
    assert 0 < len(recheck_rows()) < DECKS

    took = wait_until_finished([job], [worker], watchdog=False)
    job.refresh_from_db()
    assert took < RESUME_TIMEOUT
    assert worker.process.poll() is None  # the worker itself lives on with a new child
    assert_completed_once(job, many_decks)
