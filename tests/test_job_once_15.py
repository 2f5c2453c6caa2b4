"""Card imports and exports are resumable and happen exactly once (issue #15), without a
worker: a run stopped as kill -9 stops it (an exception no handler catches) leaves
nothing written, the job is claimed again only once its heartbeat is older than the lease,
the rerun gives what a run without a fault gives, and a delivery after the job finished,
or a run whose job another run finished meanwhile, writes nothing. The watchdog and the
task's retry on a redelivery are the same for every kind of job."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone, translation

from cardpool import services as cardpool_services
from cardpool.models import Card, CardSet, Game, ImportJob, Printing
from config.celery import app
from config.jobs import HEARTBEAT_LEASE, PENDING_GRACE, TrackedJob, requeue_stalled_jobs
from tests.decks import conftest as deck_fixtures
from tests.tournaments.factories import UserFactory, open_event
from tournaments import exports, policy
from tournaments.models import ExportJob, Registration, RegistrationStatus

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

CARD_FILE = (
    "name,set,card_type,number,rarity\n"
    "山名春恵,base,CHARACTER,B-001,R\n"
    "スワティ,base,NAVIGATOR,B-002,C\n"
    "森原 さとみ,base,CHARACTER,B-003,C\n"
).encode()


class WorkerKilled(BaseException):
    """Stands for kill -9: no ``except Exception`` catches it, nothing after it runs."""


def new_game(slug: str) -> Game:
    game = Game.objects.create(slug=slug, name=f"CrossOver ({slug})")
    CardSet.objects.create(game=game, code="base", name="基本セット", release_order=1)
    return game


def game_rows(game: Game) -> tuple[list, list]:
    """Every column of the game's cards and printings but ids (a printing's card and set
    by name and code)."""

    def columns(model, *, instead: dict) -> list[str]:
        names = [field.name for field in model._meta.concrete_fields if field.name != "id"]
        return [instead.get(name, name) for name in names if name != "game"]

    card_rows = Card.objects.filter(game=game).values_list(*columns(Card, instead={}))
    printing_rows = Printing.objects.filter(card__game=game).values_list(
        *columns(Printing, instead={"card": "card__name", "set": "set__code"})
    )
    return sorted(card_rows), sorted(printing_rows)


def import_without_a_fault(content: bytes) -> tuple[dict, tuple[list, list]]:
    """The report and rows of the same file imported into a game of its own."""
    game = new_game("no-fault")
    summary = cardpool_services.import_cards(content, game=game, filename="cards.csv")
    return summary.as_dict(), game_rows(game)


def event_with_decklists(fmt, players: int):
    """An event of ``fmt`` with ``players`` submitted decklists, and its organizer."""
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, fmt)
    user_model = get_user_model()
    people = user_model.objects.bulk_create(
        user_model(username=f"player{n:05d}") for n in range(players)
    )
    now = timezone.now()
    Registration.objects.bulk_create(
        Registration(
            event=event,
            player=person,
            status=RegistrationStatus.REGISTERED,
            registered_at=now,
            deck_text=deck_fixtures.LEGAL_DECK,
            deck_submitted_at=now,
        )
        for person in people
    )
    return event, organizer


def export_without_a_fault(job: ExportJob) -> bytes:
    """The file of the job's export built now, in this process."""
    event, user = job.event, job.created_by
    with translation.override(job.language):
        built = exports.build_file(
            job.kind, job.file_format, user, event, policy.access_for(user, event)
        )
    return built.content


def let_the_lease_expire(job: TrackedJob) -> None:
    stale = timezone.now() - HEARTBEAT_LEASE - dt.timedelta(seconds=1)
    type(job).objects.filter(pk=job.pk).update(heartbeat_at=stale)


@pytest.fixture
def import_game():
    return new_game("crossover-import")


@pytest.fixture
def import_job(import_game):
    return ImportJob.objects.create(game=import_game, filename="cards.csv", content=CARD_FILE)


@pytest.fixture
def export_job(crossover, django_capture_on_commit_callbacks):
    """A decklists export of three players, queued but not run."""
    event, organizer = event_with_decklists(crossover, 3)
    with django_capture_on_commit_callbacks(execute=False):
        return exports.start_export_job(organizer, event, kind="decklists", file_format="csv")


@pytest.mark.django_db
def test_claim_takes_a_waiting_job_or_one_whose_heartbeat_is_older_than_the_lease(import_job):
    assert not ImportJob.stalled().exists()
    assert ImportJob.claim(import_job.pk)
    import_job.refresh_from_db()
    assert import_job.status == ImportJob.Status.RUNNING
    assert timezone.now() - import_job.heartbeat_at < dt.timedelta(seconds=5)
    assert not ImportJob.claim(import_job.pk)  # another worker's, alive
    assert not ImportJob.stalled().exists()
    let_the_lease_expire(import_job)
    assert list(ImportJob.stalled()) == [import_job]
    assert ImportJob.claim(import_job.pk)  # its worker died
    ImportJob.objects.filter(pk=import_job.pk).update(status=ImportJob.Status.DONE)
    let_the_lease_expire(import_job)
    assert not ImportJob.claim(import_job.pk)
    assert not ImportJob.stalled().exists()


@pytest.mark.django_db
@pytest.mark.parametrize("skew", [dt.timedelta(hours=1), -dt.timedelta(hours=1)])
def test_heartbeats_are_written_and_compared_with_the_database_clock(import_job, monkeypatch, skew):
    """A worker's clock ahead of or behind the database's by more than the lease makes
    neither a live job look dead nor a dead one look alive."""
    real_now = timezone.now

    def beat_age() -> dt.timedelta:
        beat = ImportJob.objects.values_list("heartbeat_at", flat=True).get(pk=import_job.pk)
        return real_now() - beat

    monkeypatch.setattr(timezone, "now", lambda: real_now() + skew)
    assert ImportJob.claim(import_job.pk)
    assert abs(beat_age()) < dt.timedelta(seconds=5)
    assert not ImportJob.stalled().exists()
    assert not ImportJob.claim(import_job.pk)
    dead = real_now() - HEARTBEAT_LEASE - dt.timedelta(seconds=1)
    ImportJob.objects.filter(pk=import_job.pk).update(heartbeat_at=dead)
    assert list(ImportJob.stalled()) == [import_job]
    ImportJob.report_progress(import_job.pk, 1)
    assert abs(beat_age()) < dt.timedelta(seconds=5)
    assert not ImportJob.stalled().exists()


@pytest.mark.django_db
def test_progress_is_the_heartbeat_of_a_running_job_only(import_job):
    ImportJob.claim(import_job.pk)
    let_the_lease_expire(import_job)
    ImportJob.report_progress(import_job.pk, 5, 10)
    import_job.refresh_from_db()
    assert (import_job.done, import_job.total) == (5, 10)
    assert timezone.now() - import_job.heartbeat_at < dt.timedelta(seconds=5)
    assert import_job.finish(ImportJob.Status.DONE, report={"rows": 10})
    ImportJob.report_progress(import_job.pk, 7)  # a late run's progress changes nothing
    import_job.refresh_from_db()
    assert (import_job.status, import_job.done, import_job.report) == ("done", 5, {"rows": 10})


@pytest.mark.django_db
def test_import_killed_while_writing_leaves_nothing_and_its_rerun_writes_once(
    import_job, import_game, monkeypatch
):
    real_bulk_create = Printing.objects.bulk_create

    def killed(*args, **kwargs):
        raise WorkerKilled

    # The cards are inserted, then the worker dies before the printings.
    monkeypatch.setattr(Printing.objects, "bulk_create", killed)
    with pytest.raises(WorkerKilled):
        cardpool_services.run_import_job(import_job.pk)
    import_job.refresh_from_db()
    assert (import_job.status, import_job.report, import_job.total) == ("running", {}, 3)
    assert game_rows(import_game) == ([], [])  # the cards went with the transaction
    monkeypatch.setattr(Printing.objects, "bulk_create", real_bulk_create)

    # A redelivery while the heartbeat is fresh: the job may be another worker's.
    assert cardpool_services.run_import_job(import_job.pk) is None
    assert game_rows(import_game) == ([], [])

    let_the_lease_expire(import_job)
    assert cardpool_services.run_import_job(import_job.pk) is not None
    import_job.refresh_from_db()
    report, rows = import_without_a_fault(CARD_FILE)
    assert (import_job.status, import_job.done, import_job.total) == ("done", 3, 3)
    assert import_job.report == report
    assert (report["cards_created"], report["printings_created"]) == (3, 3)
    assert game_rows(import_game) == rows

    # A delivery after the job finished does nothing.
    finished_at = import_job.finished_at
    assert cardpool_services.run_import_job(import_job.pk) is None
    import_job.refresh_from_db()
    assert (import_job.report, import_job.finished_at) == (report, finished_at)
    assert game_rows(import_game) == rows


@pytest.mark.django_db
def test_a_run_whose_job_another_run_finished_writes_nothing(import_job, import_game):
    """The lease ran out on a live worker (A) and another (B) finished the job: A's last
    transaction finds the job finished and writes neither rows nor outcome."""
    assert ImportJob.claim(import_job.pk)
    rows = cardpool_services.check_card_file(CARD_FILE, game=import_game, filename="cards.csv")
    let_the_lease_expire(import_job)
    assert cardpool_services.run_import_job(import_job.pk) is not None  # B
    done_by_b = ImportJob.objects.get(pk=import_job.pk)
    stored = game_rows(import_game)
    writes = []

    def write():
        writes.append(cardpool_services.write_card_rows(rows, import_game).as_dict())
        return {"report": writes[-1]}

    assert not import_job.finish(ImportJob.Status.DONE, write=write)  # A
    assert writes == []
    import_job.refresh_from_db()
    assert (import_job.report, import_job.finished_at) == (done_by_b.report, done_by_b.finished_at)
    assert game_rows(import_game) == stored


@pytest.mark.django_db
def test_finish_rolls_back_the_jobs_writes_with_its_outcome(import_job, import_game):
    ImportJob.claim(import_job.pk)

    def write():
        Card.objects.create(game=import_game, name="書きかけ")
        raise WorkerKilled

    with pytest.raises(WorkerKilled):
        import_job.finish(ImportJob.Status.DONE, write=write)
    import_job.refresh_from_db()
    assert (import_job.status, import_job.finished_at) == ("running", None)
    assert not Card.objects.filter(game=import_game).exists()


@pytest.mark.django_db
def test_export_killed_before_its_file_is_stored_builds_it_again_once(export_job, monkeypatch):
    real_build_file = exports.build_file

    def built_then_killed(*args, **kwargs):
        real_build_file(*args, **kwargs)
        raise WorkerKilled

    monkeypatch.setattr(exports, "build_file", built_then_killed)
    with pytest.raises(WorkerKilled):
        exports.run_export_job(export_job.pk)
    export_job.refresh_from_db()
    assert (export_job.status, export_job.total) == ("running", 9)
    assert ExportJob.objects.filter(pk=export_job.pk, content__isnull=True).exists()
    monkeypatch.setattr(exports, "build_file", real_build_file)

    assert exports.run_export_job(export_job.pk) is None  # the heartbeat is fresh
    let_the_lease_expire(export_job)
    assert exports.run_export_job(export_job.pk) is not None
    export_job.refresh_from_db()
    assert (export_job.status, export_job.done, export_job.total) == ("done", 9, 9)
    content = exports.job_file(export_job).content
    assert content == export_without_a_fault(export_job)
    assert content.count(b"\r\n") == 10  # the header and three cards of three players

    finished_at = export_job.finished_at
    assert exports.run_export_job(export_job.pk) is None
    export_job.refresh_from_db()
    assert export_job.finished_at == finished_at
    assert exports.job_file(export_job).content == content


@pytest.mark.django_db
def test_watchdog_sends_again_every_kind_of_job_whose_worker_died(import_job, export_job):
    assert ImportJob.claim(import_job.pk)
    assert ExportJob.claim(export_job.pk)
    assert requeue_stalled_jobs() == {}  # their workers may be alive
    let_the_lease_expire(import_job)
    let_the_lease_expire(export_job)
    # Celery runs in-process in the tests: a task sent again runs its job to the end.
    assert requeue_stalled_jobs() == {
        "cardpool.ImportJob": [import_job.pk],
        "tournaments.ExportJob": [export_job.pk],
    }
    import_job.refresh_from_db()
    export_job.refresh_from_db()
    assert (import_job.status, import_job.report["cards_created"]) == ("done", 3)
    assert (export_job.status, export_job.done) == ("done", 9)
    assert requeue_stalled_jobs() == {}


@pytest.mark.django_db
def test_watchdog_sends_again_a_job_still_waiting_after_the_grace_period(import_game):
    """Its message was lost (the web process died before sending it, the broker lost it):
    sent again once it has waited for PENDING_GRACE; a job created just now and one whose
    worker is alive are not."""
    assert PENDING_GRACE.total_seconds() == 60
    lost, waiting, running = (
        ImportJob.objects.create(game=import_game, filename="cards.csv", content=CARD_FILE)
        for _ in range(3)
    )
    two_minutes_ago = timezone.now() - dt.timedelta(minutes=2)
    ImportJob.objects.filter(pk__in=[lost.pk, running.pk]).update(created_at=two_minutes_ago)
    assert ImportJob.claim(running.pk)
    assert requeue_stalled_jobs() == {"cardpool.ImportJob": [lost.pk]}
    statuses = dict(ImportJob.objects.values_list("pk", "status"))
    assert statuses == {lost.pk: "done", waiting.pk: "pending", running.pk: "running"}
    assert requeue_stalled_jobs() == {}


@pytest.mark.django_db
@pytest.mark.parametrize("task_name", ["cardpool.import_card_file", "tournaments.build_export"])
def test_a_redelivery_while_the_heartbeat_is_fresh_looks_again_when_the_lease_runs_out(
    task_name, import_job, export_job, monkeypatch
):
    app.loader.import_default_modules()
    task = app.tasks[task_name]
    job = import_job if task_name == "cardpool.import_card_file" else export_job
    model = type(job)
    countdowns = []

    class Retry(Exception):
        pass

    def retry(countdown):
        countdowns.append(countdown)
        return Retry()

    monkeypatch.setattr(task, "retry", retry)
    assert model.claim(job.pk)
    beat = timezone.now() - dt.timedelta(seconds=10)
    model.objects.filter(pk=job.pk).update(heartbeat_at=beat)
    real_now = timezone.now  # this worker's clock is an hour ahead of the database's
    monkeypatch.setattr(timezone, "now", lambda: real_now() + dt.timedelta(hours=1))
    with pytest.raises(Retry):
        task(job_id=job.pk)  # a delivery outside the eager mode: as in a worker
    assert 20 < countdowns[0] <= 21  # 30 s after the last beat, and a second
    job.refresh_from_db()
    assert (job.status, job.heartbeat_at) == ("running", beat)

    monkeypatch.setattr(timezone, "now", real_now)
    let_the_lease_expire(job)
    task(job_id=job.pk)  # the lease ran out: this delivery runs the job
    job.refresh_from_db()
    assert job.status == "done"
    task(job_id=job.pk)  # a finished job: nothing to do, no retry
    assert len(countdowns) == 1
