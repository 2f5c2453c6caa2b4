"""A ban-list re-check rides out a database blip (issue #21).

A connection the server kills mid-job (``pg_terminate_backend``), a serialization failure
or a deadlock is not the job's failure: the work is tried again on a new connection from
the last chunk it stored, and every deck gets its verdict. A job that fails on every try
is given back to the watchdog, at most ``MAX_ATTEMPTS`` runs in all, then ends failed and
is shown to staff with a button that runs it again (written to the job's admin history);
nobody else may press it.

The kill needs PostgreSQL; everywhere else the same errors come from a fault injected at
the database boundary (an execute wrapper raising Django's ``OperationalError`` as a
killed connection does).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
import time

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission
from django.db import OperationalError, connection
from django.db.models import F
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cardpool import services as cardpool_services
from cardpool.models import ImportJob
from config import jobs
from config.jobs import HEARTBEAT_LEASE, MAX_ATTEMPTS, requeue_stalled_jobs
from decks import services
from decks.models import BanEntry, Deck, DeckCheck, DeckEntry, Format, RecheckJob
from tests import test_job_once_15 as job_fixtures
from tests.decks import conftest as deck_fixtures
from tournaments import exports
from tournaments.models import ExportJob

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover
player = deck_fixtures.player
import_game = job_fixtures.import_game
import_job = job_fixtures.import_job
export_job = job_fixtures.export_job

pytestmark = pytest.mark.django_db(transaction=True)

CLEAN_DECK = "4 狡猾フィーリア [base]\n46 スワティ\n"
KILLED = "terminating connection due to administrator command"
RETRY_LOG = "database error"


@pytest.fixture(autouse=True)
def no_waiting_between_tries(monkeypatch):
    """The tries of one attempt follow each other at once (1, 2 and 4 s in production)."""
    monkeypatch.setattr(jobs, "RETRY_DELAYS", (0.0, 0.0, 0.0))


class DatabaseBlip:
    """An execute wrapper: the statements that match ``pattern`` (at their start) fail
    with the error a killed connection gives, ``times`` times (``None``: every time); the
    others run."""

    def __init__(self, pattern: str, *, times: int | None):
        self.pattern, self.times = re.compile(pattern), times
        self.seen = self.failed = 0

    def matches(self, sql: str) -> bool:
        return self.pattern.match(sql) is not None

    def __call__(self, execute, sql, params, many, context):
        if self.matches(sql):
            self.seen += 1
            if self.times is None or self.failed < self.times:
                self.failed += 1
                raise OperationalError(KILLED)
        return execute(sql, params, many, context)


# SQLite says INSERT OR IGNORE, PostgreSQL ON CONFLICT DO NOTHING (bulk_create ignoring
# conflicts).
STORE_CHECKS = r'INSERT (OR IGNORE )?INTO "decks_deckcheck"'


def many_decks(fmt, owner, count: int) -> list[int]:
    """``count`` decks of ``fmt`` checked legal at version 1, every other one with 森原 さと
    み (which the caller bans); their ids."""
    banned, _ = services.save_deck(owner=owner, fmt=fmt, name="t0", text=deck_fixtures.LEGAL_DECK)
    clean, _ = services.save_deck(owner=owner, fmt=fmt, name="t1", text=CLEAN_DECK)
    templates = [list(banned.entries.all()), list(clean.entries.all())]
    decks = Deck.objects.bulk_create(
        Deck(owner=owner, format=fmt, name=f"deck {n}") for n in range(count - 2)
    )
    DeckEntry.objects.bulk_create(
        (
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
        ),
        batch_size=5000,
    )
    first = banned.checks.get()
    DeckCheck.objects.bulk_create(
        (
            DeckCheck(
                deck=deck, format_version=1, as_of=first.as_of, legal=True, report=first.report
            )
            for deck in decks
        ),
        batch_size=5000,
    )
    return sorted(Deck.objects.filter(format=fmt).values_list("id", flat=True))


def queued_recheck(fmt: Format) -> RecheckJob:
    """What services.format_changed records, without sending the task (the test runs it)."""
    Format.objects.filter(pk=fmt.pk).update(version=F("version") + 1)
    fmt.refresh_from_db(fields=["version"])
    return RecheckJob.objects.create(format=fmt, format_version=fmt.version, reason="ban")


def rows_at_version_2() -> list[int]:
    return sorted(DeckCheck.objects.filter(format_version=2).values_list("deck_id", flat=True))


class JobsLog(logging.Handler):
    """The records of config.jobs (on its own logger: a task sent by the watchdog sets up
    the logging again, which drops pytest's handler from the root logger)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())

    def retries(self) -> int:
        return sum(RETRY_LOG in message for message in self.messages)


@pytest.fixture
def jobs_log():
    handler = JobsLog()
    logger = logging.getLogger("config.jobs")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


@pytest.fixture
def seven_decks(crossover, player, cards, monkeypatch):
    """Seven decks (four with 森原 さとみ), 森原 さとみ banned, a re-check queued; two
    decks a chunk, so the run stores four chunks."""
    monkeypatch.setattr(services, "CHUNK", 2)
    deck_ids = many_decks(crossover, player, 7)
    BanEntry.objects.create(format=crossover, card=cards["satomi"])
    return deck_ids, queued_recheck(crossover)


# --- a killed connection, on PostgreSQL -------------------------------------------------


DECKS = 4000


def test_recheck_whose_connection_the_server_kills_finishes_every_deck(
    crossover, player, cards, jobs_log
):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no server that could kill a connection (pg_terminate_backend)")
    deck_ids = many_decks(crossover, player, DECKS)
    BanEntry.objects.create(format=crossover, card=cards["satomi"])
    job = queued_recheck(crossover)
    outcome: dict = {}

    def worker() -> None:
        try:
            outcome["job"] = services.run_recheck(job.pk)
        except BaseException as exc:  # reported by the assertion below
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    deadline = time.monotonic() + 60
    while RecheckJob.objects.get(pk=job.pk).done < services.CHUNK:
        assert thread.is_alive(), outcome
        assert time.monotonic() < deadline
        time.sleep(0.005)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        killed = [row[0] for row in cursor.fetchall()]
    done_at_the_kill = RecheckJob.objects.get(pk=job.pk).done
    thread.join(timeout=60)

    assert killed == [True]  # the worker's connection, and no other
    assert services.CHUNK <= done_at_the_kill < DECKS
    assert "error" not in outcome, outcome
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.error) == ("done", DECKS, DECKS, "")
    assert job.attempts == 1  # tried again within the run, not by the watchdog
    assert jobs_log.retries() == 1
    assert rows_at_version_2() == deck_ids  # every deck's verdict, once
    assert DeckCheck.objects.filter(format_version=2, legal=False).count() == DECKS // 2
    assert len(job.became_illegal) == DECKS // 2


# --- the same errors injected, on every database ----------------------------------------


def test_a_transient_error_is_tried_again_from_the_last_stored_chunk(seven_decks, jobs_log):
    deck_ids, job = seven_decks
    stored_at_each_try = []

    class Blip(DatabaseBlip):
        def __call__(self, execute, sql, params, many, context):
            if self.matches(sql):
                stored_at_each_try.append(len(rows_at_version_2()))
            return super().__call__(execute, sql, params, many, context)

    blip = Blip(STORE_CHECKS, times=1)
    with connection.execute_wrapper(blip):
        assert services.run_recheck(job.pk) is not None
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.attempts) == ("done", 7, 7, 1)
    assert job.error == ""
    assert (blip.seen, blip.failed) == (5, 1)  # four chunks, the first one twice
    # The failed chunk is stored on the next try; nothing stored before it is checked again.
    assert stored_at_each_try == [0, 0, 2, 4, 6]
    assert rows_at_version_2() == deck_ids
    assert [row["name"] for row in job.became_illegal] == ["t0", "deck 0", "deck 2", "deck 4"]
    assert jobs_log.retries() == 1


def test_a_job_failing_on_every_try_is_given_back_to_the_watchdog_up_to_three_attempts(
    seven_decks, jobs_log
):
    _deck_ids, job = seven_decks
    blip = DatabaseBlip(STORE_CHECKS, times=None)
    with connection.execute_wrapper(blip):
        services.run_recheck(job.pk)
        job.refresh_from_db()
        # Given back: running, no heartbeat, so the watchdog's next sweep sends it again.
        assert (job.status, job.attempts, job.heartbeat_at) == ("running", 1, None)
        assert job.error == f"OperationalError('{KILLED}')"
        assert requeue_stalled_jobs() == {"decks.RecheckJob": [job.pk]}  # attempt 2
        job.refresh_from_db()
        assert (job.status, job.attempts, job.heartbeat_at) == ("running", 2, None)
        assert requeue_stalled_jobs() == {"decks.RecheckJob": [job.pk]}  # attempt 3
        job.refresh_from_db()
        assert (job.status, job.attempts) == ("failed", MAX_ATTEMPTS)
        assert job.error == f"OperationalError('{KILLED}')"
        assert requeue_stalled_jobs() == {}  # no fourth attempt
        assert not RecheckJob.claim(job.pk)
    assert MAX_ATTEMPTS == 3
    assert blip.failed == 3 * 4  # three attempts of four tries each
    assert jobs_log.retries() == 3 * 3
    assert rows_at_version_2() == []
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("failed", 3)


def test_watchdog_ends_failed_a_job_whose_third_worker_died(seven_decks, jobs_log):
    """The last attempt's worker died without a word (killed, or the database was gone):
    once its heartbeat runs out the watchdog ends the job failed instead of sending it."""
    _deck_ids, job = seven_decks
    for _ in range(MAX_ATTEMPTS):
        assert RecheckJob.claim(job.pk)
        stale = timezone.now() - HEARTBEAT_LEASE - dt.timedelta(seconds=1)
        RecheckJob.objects.filter(pk=job.pk).update(heartbeat_at=stale)
    assert requeue_stalled_jobs() == {}
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("failed", 3)
    assert job.error == "no error recorded: the worker died or lost the database"
    assert job.finished_at is not None
    assert f"decks.RecheckJob [{job.pk}] failed 3 times" in "\n".join(jobs_log.messages)


# --- staff see a failed job and run it again ----------------------------------------------


def failed_three_times(job: RecheckJob) -> RecheckJob:
    with connection.execute_wrapper(DatabaseBlip(STORE_CHECKS, times=None)):
        services.run_recheck(job.pk)
        requeue_stalled_jobs()
        requeue_stalled_jobs()
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("failed", 3)
    return job


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("root", password="pw")


def test_staff_see_the_failed_job_with_a_rerun_button_and_rerun_it(seven_decks, staff):
    deck_ids, job = seven_decks
    job = failed_three_times(job)
    admin = signed_in(staff)
    progress_url = reverse("admin:decks_recheckjob_progress", args=[job.pk])
    rerun_url = reverse("admin:decks_recheckjob_rerun", args=[job.pk])

    changelist = admin.get(reverse("admin:decks_recheckjob_changelist")).content.decode()
    assert f'<a href="{progress_url}">Failed after 3 attempts</a>' in changelist
    page = admin.get(progress_url)
    html = page.content.decode()
    assert page.status_code == 200
    assert f'<form method="post" action="{rerun_url}">' in html
    assert "Stopped after 3 attempts." in html
    assert f"OperationalError(&#x27;{KILLED}&#x27;)" in html
    assert admin.get(rerun_url).status_code == 405  # a button, not a link

    response = admin.post(rerun_url)  # the database is back
    assert response.status_code == 302
    assert response["Location"] == progress_url
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.attempts, job.error) == ("done", 7, 7, 1, "")
    assert rows_at_version_2() == deck_ids
    assert len(job.became_illegal) == 4
    [entry] = LogEntry.objects.filter(object_id=str(job.pk))
    assert (entry.user, entry.action_flag) == (staff, CHANGE)
    assert entry.change_message == (
        f"Run again (was: Failed after 3 attempts; OperationalError('{KILLED}'))"
    )
    assert entry.content_type.model_class() is RecheckJob

    # Done: no button, and a second press changes nothing.
    assert rerun_url not in admin.get(progress_url).content.decode()
    assert admin.post(rerun_url).status_code == 302
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 1)
    assert LogEntry.objects.filter(object_id=str(job.pk)).count() == 1


def test_the_rerun_button_refuses_anyone_who_may_not_change_jobs(seven_decks, django_user_model):
    _deck_ids, job = seven_decks
    job = failed_three_times(job)
    rerun_url = reverse("admin:decks_recheckjob_rerun", args=[job.pk])
    progress_url = reverse("admin:decks_recheckjob_progress", args=[job.pk])
    outsider = django_user_model.objects.create_user("outsider", password="pw")
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_recheckjob"))

    response = signed_in(outsider).post(rerun_url)
    assert response.status_code == 302  # the admin's login page, not the job
    assert response["Location"].startswith(reverse("admin:login"))
    assert signed_in(viewer).post(rerun_url).status_code == 403
    assert Client().post(rerun_url).status_code == 302
    page = signed_in(viewer).get(progress_url)
    assert page.status_code == 200
    assert rerun_url not in page.content.decode()  # sees the job, not the button
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("failed", 3)
    assert not LogEntry.objects.exists()
    assert (
        signed_in(viewer).post(reverse("admin:decks_recheckjob_rerun", args=[0])).status_code == 403
    )


# --- the card import and the export follow the same rule -------------------------------


def test_card_import_tries_a_transient_error_again(import_job, jobs_log):
    blip = DatabaseBlip(r'INSERT INTO "cardpool_printing"', times=1)
    with connection.execute_wrapper(blip):
        assert cardpool_services.run_import_job(import_job.pk) is not None
    import_job.refresh_from_db()
    assert (import_job.status, import_job.attempts) == ("done", 1)
    assert (import_job.report["cards_created"], import_job.report["printings_created"]) == (3, 3)
    assert blip.seen == 2
    assert jobs_log.retries() == 1


def test_card_import_failing_on_every_try_ends_failed_after_three_attempts(import_job):
    with connection.execute_wrapper(DatabaseBlip('INSERT INTO "cardpool_card"', times=None)):
        cardpool_services.run_import_job(import_job.pk)
        assert requeue_stalled_jobs() == {"cardpool.ImportJob": [import_job.pk]}
        assert requeue_stalled_jobs() == {"cardpool.ImportJob": [import_job.pk]}
        assert requeue_stalled_jobs() == {}
    import_job.refresh_from_db()
    assert (import_job.status, import_job.attempts) == ("failed", 3)
    assert import_job.report == {
        "errors": [{"row": 0, "field": "", "reason": f"OperationalError('{KILLED}')"}]
    }
    assert import_job.error_text() == f"OperationalError('{KILLED}')"


@pytest.mark.django_db  # export_job holds its task back until the test's transaction ends
def test_export_tries_a_transient_error_again(export_job, jobs_log):
    blip = DatabaseBlip('SELECT "tournaments_registration"', times=1)
    with connection.execute_wrapper(blip):
        assert exports.run_export_job(export_job.pk) is not None
    export_job.refresh_from_db()
    assert (export_job.status, export_job.done, export_job.attempts) == ("done", 9, 1)
    assert export_job.error == ""
    assert blip.failed == 1
    assert jobs_log.retries() == 1


@pytest.mark.django_db
def test_export_failing_on_every_try_is_rerun_by_staff(
    export_job, staff, django_capture_on_commit_callbacks
):
    with connection.execute_wrapper(DatabaseBlip('SELECT "tournaments_registration"', times=None)):
        exports.run_export_job(export_job.pk)
        requeue_stalled_jobs()
        requeue_stalled_jobs()
    export_job.refresh_from_db()
    assert (export_job.status, export_job.attempts) == ("failed", 3)
    progress_url = reverse("admin:tournaments_exportjob_progress", args=[export_job.pk])
    rerun_url = reverse("admin:tournaments_exportjob_rerun", args=[export_job.pk])
    admin = signed_in(staff)
    assert f'action="{rerun_url}"' in admin.get(progress_url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert admin.post(rerun_url).status_code == 302
    export_job.refresh_from_db()
    assert (export_job.status, export_job.done, export_job.attempts) == ("done", 9, 1)
    assert LogEntry.objects.filter(object_id=str(export_job.pk)).count() == 1
    assert ExportJob.objects.filter(pk=export_job.pk, content__isnull=False).exists()
    assert ImportJob.objects.count() == 0
