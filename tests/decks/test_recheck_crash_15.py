"""A ban-list re-check survives its worker's death exactly once (issue #15): one re-check row
per deck and format version, resumed from the stored rows, and the same list of decks that
became illegal as a run without a crash."""

import datetime as dt
import importlib

import pytest
from django.apps import apps
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.jobs import HEARTBEAT_LEASE, requeue_stalled_jobs
from decks import services
from decks.models import BanEntry, Deck, DeckCheck, RecheckJob

from .conftest import LEGAL_DECK

CLEAN_DECK = "4 狡猾フィーリア [base]\n46 スワティ\n"
SMALL_DECK = "4 森原 さとみ\n10 スワティ\n"


class WorkerKilled(Exception):
    """Stands for kill -9: the run stops between two chunks, nothing else is written."""


def kill_after(chunks: int):
    def after_chunk(number: int) -> None:
        if number == chunks:
            raise WorkerKilled

    return after_chunk


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(services, "CHUNK", 2)


@pytest.fixture
def banned(crossover, player, outsider, cards, django_capture_on_commit_callbacks):
    """Seven decks (four with 森原 さとみ, two clean, one too small), then 森原 さとみ is
    banned; the re-check job is queued but has not run."""
    texts = [LEGAL_DECK, CLEAN_DECK, LEGAL_DECK, SMALL_DECK, LEGAL_DECK, CLEAN_DECK, LEGAL_DECK]
    decks = [
        services.save_deck(
            owner=player if n % 2 else outsider, fmt=crossover, name=f"deck {n}", text=text
        )[0]
        for n, text in enumerate(texts)
    ]
    BanEntry.objects.create(format=crossover, card=cards["satomi"])
    with django_capture_on_commit_callbacks(execute=False):
        job = services.format_changed(crossover, reason="ban: 森原 さとみ")
    return decks, job


def expected_became_illegal(decks):
    return [
        {"deck": deck.pk, "name": deck.name, "owner": deck.owner.username, "codes": ["BANNED"]}
        for deck in decks
        if deck.name in ("deck 0", "deck 2", "deck 4", "deck 6")
    ]


def recheck_rows(version):
    return sorted(
        DeckCheck.objects.filter(format_version=version).values_list("deck_id", "by_recheck")
    )


def let_the_lease_expire(job):
    stale = timezone.now() - HEARTBEAT_LEASE - dt.timedelta(seconds=1)
    RecheckJob.objects.filter(pk=job.pk).update(heartbeat_at=stale)


def test_recheck_killed_after_two_chunks_resumes_with_one_row_per_deck(small_chunks, banned):
    decks, job = banned
    assert RecheckJob.claim(job.pk)
    with pytest.raises(WorkerKilled):
        services._recheck(RecheckJob.objects.get(pk=job.pk), after_chunk=kill_after(2))
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == (RecheckJob.Status.RUNNING, 4, 7)
    assert len(recheck_rows(2)) == 4

    # The redelivered task while the heartbeat is fresh: the job is another worker's.
    assert services.run_recheck(job.pk) is None
    assert len(recheck_rows(2)) == 4

    let_the_lease_expire(job)
    assert services.run_recheck(job.pk) is not None
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.error) == (RecheckJob.Status.DONE, 7, 7, "")
    assert recheck_rows(2) == sorted((deck.pk, True) for deck in decks)
    assert job.became_illegal == expected_became_illegal(decks)
    assert DeckCheck.objects.count() == 14

    # A run without a crash, over the same decks and version, lists the same decks.
    DeckCheck.objects.filter(format_version=2).delete()
    clean_run = RecheckJob.objects.create(format=job.format, format_version=2, reason="again")
    services.run_recheck(clean_run.pk)
    clean_run.refresh_from_db()
    assert clean_run.became_illegal == job.became_illegal
    assert recheck_rows(2) == sorted((deck.pk, True) for deck in decks)


def test_listing_the_decks_that_became_illegal_beats_after_each_chunk(
    small_chunks, banned, monkeypatch
):
    """The last step reads every deck's checks: each chunk of decks beats, so a long list
    does not outlast the lease of a live worker."""
    decks, job = banned
    assert RecheckJob.claim(job.pk)
    services._recheck(RecheckJob.objects.get(pk=job.pk), after_chunk=None)
    real_latest_legality = services._latest_legality
    stale_at_chunk_start = []

    def latest_legality(deck_ids, **kwargs):
        # Each chunk begins with this: was the last beat fresh? Then time passes.
        stale_at_chunk_start.append(RecheckJob.stalled().exists())
        let_the_lease_expire(job)
        return real_latest_legality(deck_ids, **kwargs)

    monkeypatch.setattr(services, "_latest_legality", latest_legality)
    assert services._became_illegal(job.format, 2, job_id=job.pk) == expected_became_illegal(decks)
    assert stale_at_chunk_start == [False, False, False, False]  # 7 decks, 2 a chunk
    assert not RecheckJob.stalled().exists()


def test_recheck_killed_twice_still_lists_decks_against_their_check_before_the_change(
    small_chunks, banned
):
    decks, job = banned
    for chunks in (1, 2):
        RecheckJob.claim(job.pk)
        with pytest.raises(WorkerKilled):
            services._recheck(RecheckJob.objects.get(pk=job.pk), after_chunk=kill_after(chunks))
        let_the_lease_expire(job)
    job.refresh_from_db()
    assert job.done == 6  # 2 decks, then 4 more
    services.run_recheck(job.pk)
    job.refresh_from_db()
    assert job.status == RecheckJob.Status.DONE
    assert job.became_illegal == expected_became_illegal(decks)
    assert len(recheck_rows(2)) == 7


def test_recheck_skips_a_deck_its_owner_saved_after_the_change(small_chunks, banned, player):
    decks, job = banned
    saved = decks[1]  # clean; its owner saves it again (now with the banned card)
    services.save_deck(owner=player, fmt=job.format, name=saved.name, text=LEGAL_DECK, deck=saved)
    services.run_recheck(job.pk)
    job.refresh_from_db()
    assert (job.done, job.total) == (7, 7)
    assert DeckCheck.objects.filter(deck=saved, format_version=2).values_list(
        "by_recheck", "legal"
    ).get() == (False, False)
    # Legal before the ban, illegal at its first check against the new version.
    assert job.became_illegal == sorted(
        [
            *expected_became_illegal(decks),
            {"deck": saved.pk, "name": saved.name, "owner": "player", "codes": ["BANNED"]},
        ],
        key=lambda row: row["deck"],
    )


def test_recheck_lists_a_never_checked_deck_that_is_illegal(small_chunks, banned, player):
    decks, job = banned
    unchecked = Deck.objects.create(owner=player, format=job.format, name="imported")
    services.run_recheck(job.pk)
    job.refresh_from_db()
    assert (job.done, job.total) == (8, 8)
    # No cards: illegal; never checked before counts as legal before.
    assert [row["deck"] for row in job.became_illegal] == [
        *[row["deck"] for row in expected_became_illegal(decks)],
        unchecked.pk,
    ]


def test_a_second_recheck_row_at_one_version_is_refused(banned):
    decks, job = banned
    services.run_recheck(job.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckCheck.objects.create(
            deck=decks[0],
            format_version=2,
            as_of=timezone.localdate(),
            legal=True,
            report={},
            by_recheck=True,
        )


def test_owner_saves_may_repeat_a_version(crossover, player):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="x", text=LEGAL_DECK)
    services.save_deck(owner=player, fmt=crossover, name="x", text=CLEAN_DECK, deck=deck)
    assert list(deck.checks.values_list("format_version", "by_recheck")) == [
        (1, False),
        (1, False),
    ]


def test_claim_refuses_a_finished_job_and_a_running_one_with_a_fresh_heartbeat(banned):
    _decks, job = banned
    assert RecheckJob.claim(job.pk)
    assert not RecheckJob.claim(job.pk)
    let_the_lease_expire(job)
    assert RecheckJob.claim(job.pk)
    job.refresh_from_db()
    assert job.heartbeat_at > timezone.now() - dt.timedelta(seconds=5)
    RecheckJob.objects.filter(pk=job.pk).update(status=RecheckJob.Status.DONE, heartbeat_at=None)
    assert not RecheckJob.claim(job.pk)


def test_watchdog_requeues_only_running_jobs_whose_heartbeat_is_stale(small_chunks, banned):
    decks, job = banned
    RecheckJob.claim(job.pk)
    with pytest.raises(WorkerKilled):
        services._recheck(RecheckJob.objects.get(pk=job.pk), after_chunk=kill_after(1))
    assert requeue_stalled_jobs() == {}  # its worker may still be alive
    assert RecheckJob.objects.get(pk=job.pk).status == RecheckJob.Status.RUNNING
    let_the_lease_expire(job)
    # Celery runs in-process in the tests: the requeued task runs the job to its end.
    assert requeue_stalled_jobs() == {"decks.RecheckJob": [job.pk]}
    job.refresh_from_db()
    assert (job.status, job.done) == (RecheckJob.Status.DONE, 7)
    assert job.became_illegal == expected_became_illegal(decks)
    assert requeue_stalled_jobs() == {}


def test_beat_runs_the_watchdog_every_ten_seconds(settings):
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["jobs-watchdog"]
    assert entry == {
        "task": "config.requeue_stalled_jobs",
        "schedule": 10.0,
        "options": {"expires": 10.0},
    }
    assert entry["task"] in app.tasks
    assert HEARTBEAT_LEASE.total_seconds() == 30


migration = importlib.import_module("decks.migrations.0007_recheck_once_per_version")


def test_migration_keeps_the_earliest_recheck_row_and_the_owners_saves(banned, player):
    decks, job = banned
    services.run_recheck(job.pk)
    job.refresh_from_db()
    first = DeckCheck.objects.get(deck=decks[0], format_version=2)
    # As before the constraint: a crashed run's repeat, and the owner's save meanwhile.
    DeckCheck.objects.filter(format_version=2).update(by_recheck=False)
    repeat = DeckCheck.objects.create(
        deck=decks[0], format_version=2, as_of=first.as_of, legal=first.legal, report=first.report
    )
    edited = DeckCheck.objects.create(
        deck=decks[0], format_version=2, as_of=first.as_of, legal=True, report={"edited": 1}
    )
    RecheckJob.objects.filter(pk=job.pk).update(finished_at=timezone.now())
    migration.mark_and_dedupe_recheck_rows(apps, None)
    assert not DeckCheck.objects.filter(pk=repeat.pk).exists()
    assert DeckCheck.objects.get(pk=first.pk).by_recheck is True
    assert DeckCheck.objects.get(pk=edited.pk).by_recheck is False
    assert DeckCheck.objects.filter(format_version=2, by_recheck=True).count() == 7
    migration.mark_and_dedupe_recheck_rows(apps, None)  # a second run changes nothing
    assert DeckCheck.objects.filter(format_version=2).count() == 8
