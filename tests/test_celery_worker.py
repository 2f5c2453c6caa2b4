"""Card imports and event exports through a real broker (Redis, RabbitMQ) and a real
Celery worker process.

The rest of the suite runs tasks eagerly (no CELERY_BROKER_URL). Here the test process
sends the task to the broker for real, a ``celery -A config worker`` subprocess picks it
up and writes to the same test database, and the test polls the database for the result.

Every test gets its own queue name, so runs on the same Redis/RabbitMQ do not take each
other's tasks. Without the broker service the tests are skipped, except under CI (the
CI variable is set), where a missing service is a failure.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from kombu import pools as kombu_pools

from cardpool import services
from cardpool.models import Card, CardSet, Game, ImportJob, Printing
from config.celery import app
from tests.decks import conftest as deck_fixtures
from tests.tournaments.factories import UserFactory, open_event, play_round, register_all
from tournaments import exports
from tournaments import services as tournament_services
from tournaments.models import ExportJob

# The deck tests' card pool and formats, for the export test's event.
sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TASK_NAME = "cardpool.import_card_file"
EXPORT_TASK_NAME = "tournaments.build_export"
WORKER_READY_TIMEOUT = 60
JOB_TIMEOUT = 60


@dataclass(frozen=True)
class Broker:
    service: str
    host: str
    port: int
    url: str


BROKERS = {
    # Database 15 keeps the test queues away from a development worker on database 0.
    "redis": Broker("Redis", "127.0.0.1", 6379, "redis://127.0.0.1:6379/15"),
    "rabbitmq": Broker("RabbitMQ", "127.0.0.1", 5672, "amqp://guest:guest@127.0.0.1:5672//"),
}


def _require_service(broker: Broker) -> None:
    try:
        with socket.create_connection((broker.host, broker.port), timeout=3):
            return
    except OSError as exc:
        problem = f"{broker.service} is not reachable at {broker.host}:{broker.port} ({exc})"
    if os.environ.get("CI"):
        pytest.fail(f"{problem}; CI must run with {broker.service} available", pytrace=False)
    pytest.skip(f"{problem}; start {broker.service} to run the Celery worker tests")


@pytest.fixture(params=sorted(BROKERS))
def broker(request) -> Broker:
    broker = BROKERS[request.param]
    _require_service(broker)
    return broker


def _drop_broker_connections() -> None:
    """Close and forget the pooled broker connections, so the next send uses broker_url."""
    kombu_pools.reset()  # closes every pool of this process and empties kombu's registry
    app._pool = None
    app.amqp._producer_pool = None


@contextlib.contextmanager
def routed_to_broker(broker: Broker, prefix: str, tasks):
    """Send ``tasks`` from this process to ``broker``, on a fresh queue only this test's
    worker consumes (its name is yielded), and delete the queue afterwards.

    The settings make every task eager when no broker is configured (as in the test
    settings); inside the block the app publishes to the broker instead.
    """
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url", "task_routes")}
    _drop_broker_connections()
    app.conf.update(
        task_always_eager=False,
        broker_url=broker.url,
        task_routes={task: {"queue": name} for task in tasks},
    )
    try:
        yield name
    finally:
        try:
            with app.connection_for_write() as conn:
                conn.default_channel.queue_delete(name)
        except Exception as exc:
            warnings.warn(f"could not delete test queue {name}: {exc!r}", stacklevel=1)
        _drop_broker_connections()
        app.conf.update(saved)


@pytest.fixture
def queue(broker):
    """The import and export tasks go to ``broker``, on a queue of this test's own."""
    with routed_to_broker(broker, "test-import", (TASK_NAME, EXPORT_TASK_NAME)) as name:
        yield name


def _worker_database_url() -> str:
    """A DATABASE_URL naming the database this test process is using (the test one)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        if connection.is_in_memory_db():
            pytest.fail("the SQLite test database is in memory; a worker process cannot open it")
        return "sqlite:///" + str(Path(db["NAME"]).resolve())  # sqlite:////absolute/path
    if connection.vendor == "postgresql":
        auth = quote(db.get("USER") or "", safe="")
        if db.get("PASSWORD"):
            auth += ":" + quote(db["PASSWORD"], safe="")
        host = db.get("HOST") or "localhost"
        port = db.get("PORT") or 5432
        return f"postgres://{auth}@{host}:{port}/{quote(db['NAME'], safe='')}"
    pytest.fail(f"no DATABASE_URL for the {connection.vendor} backend")


class Worker:
    def __init__(self, process: subprocess.Popen, stdout: Path, stderr: Path, nodename: str):
        self.process = process
        self.stdout = stdout
        self.stderr = stderr
        self.nodename = nodename

    def output(self) -> str:
        def read(path: Path) -> str:
            return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

        return (
            f"--- worker {self.nodename} (exit code {self.process.poll()}) stdout ---\n"
            f"{read(self.stdout)}\n"
            f"--- worker stderr ---\n{read(self.stderr)}"
        )

    def log(self) -> str:
        return self.stdout.read_text(errors="replace") + self.stderr.read_text(errors="replace")

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while f"{self.nodename} ready." not in self.log():
            if self.process.poll() is not None:
                pytest.fail(f"the Celery worker exited before it was ready\n{self.output()}")
            if time.monotonic() > deadline:
                pytest.fail(f"the Celery worker was not ready after {timeout}s\n{self.output()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            # Warm shutdown. The worker notices the signal only when its event loop next
            # wakes, up to 10 s later on RabbitMQ; the remote-control message wakes it now.
            self.process.terminate()
            try:
                app.control.shutdown(destination=[self.nodename])
            except Exception as exc:
                warnings.warn(f"could not send shutdown to the worker: {exc!r}", stacklevel=1)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def launch_worker(
    broker: Broker,
    queue: str,
    nodename: str,
    logs: Path,
    *,
    pool: str = "solo",
    concurrency: int = 1,
    env: dict | None = None,
    args: tuple = (),
    own_session: bool = False,
) -> Worker:
    """Start ``celery -A config worker`` (the celery of the interpreter running the tests)
    consuming ``queue`` with the test database; its output goes to ``logs``.stdout and
    .stderr. ``own_session``: a process group of its own, so kill -9 takes its children."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "insecure-key-for-the-test-worker",
        "DEBUG": "false",
        "DATABASE_URL": _worker_database_url(),
        "CELERY_BROKER_URL": broker.url,
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        f"--pool={pool}",
        f"--concurrency={concurrency}",
        "-Q",
        queue,
        "-n",
        nodename,
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel=INFO",
        *args,
    ]
    stdout, stderr = logs.with_suffix(".stdout"), logs.with_suffix(".stderr")
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=own_session,
        )
    return Worker(process, stdout, stderr, nodename)


@pytest.fixture
def worker(broker, queue, tmp_path, transactional_db):
    """A Celery worker subprocess consuming ``queue`` with the test database."""
    running = launch_worker(broker, queue, f"{queue}@{socket.gethostname()}", tmp_path / "worker")
    try:
        running.wait_ready(WORKER_READY_TIMEOUT)
        yield running
    finally:
        running.stop()


@pytest.fixture
def not_in_this_process(monkeypatch):
    """Fail if the import runs in the test process: it must go through the broker."""

    def run_here(job_id):
        raise AssertionError(f"import job {job_id} ran in the test process, not the worker")

    monkeypatch.setattr(services, "run_import_job", run_here)


@pytest.fixture
def import_game():
    game = Game.objects.create(slug="crossover", name="CrossOver The F&C TCG")
    CardSet.objects.create(game=game, code="base", name="基本セット", release_order=1)
    return game


def wait_until_finished(job, worker: Worker):
    deadline = time.monotonic() + JOB_TIMEOUT
    while True:
        job.refresh_from_db()
        if job.finished:
            return job
        if worker.process.poll() is not None:
            pytest.fail(f"the worker exited; job {job.pk} is {job.status!r}\n{worker.output()}")
        if time.monotonic() > deadline:
            pytest.fail(
                f"job {job.pk} is still {job.status!r} after {JOB_TIMEOUT}s\n{worker.output()}"
            )
        time.sleep(0.2)


def test_worker_imports_a_card_file(import_game, worker, not_in_this_process):
    game = import_game
    content = "name,set,card_type\n山名春恵,base,CHARACTER\nスワティ,base,NAVIGATOR\n"

    job = services.create_import_job(
        game=game, filename="cards.csv", content=content.encode("utf-8")
    )

    job = wait_until_finished(job, worker)
    assert job.status == ImportJob.Status.DONE, f"report: {job.report}\n{worker.output()}"
    assert job.report["cards_created"] == 2, worker.output()
    assert job.report["printings_created"] == 2, worker.output()
    assert job.report["errors"] == [], worker.output()
    assert job.total == job.done == 2
    assert job.finished_at is not None
    assert sorted(Card.objects.filter(game=game).values_list("name", flat=True)) == sorted(
        ["山名春恵", "スワティ"]
    ), worker.output()
    assert f"Task {TASK_NAME}[" in worker.log(), worker.output()


def test_worker_rejects_a_file_with_a_bad_row(import_game, worker, not_in_this_process):
    game = import_game
    content = "name,set,card_type\n山名春恵,base,CHARACTER\nスワティ,base,MONSTER\n"

    job = services.create_import_job(
        game=game, filename="cards.csv", content=content.encode("utf-8")
    )

    job = wait_until_finished(job, worker)
    assert job.status == ImportJob.Status.FAILED, f"report: {job.report}\n{worker.output()}"
    errors = job.report["errors"]
    assert [(error["row"], error["field"]) for error in errors] == [(3, "card_type")], (
        f"{errors}\n{worker.output()}"
    )
    assert "MONSTER" in errors[0]["reason"]
    assert not Card.objects.exists(), worker.output()
    assert not Printing.objects.exists(), worker.output()
    assert f"Task {TASK_NAME}[" in worker.log(), worker.output()


def test_worker_builds_an_export(crossover, worker, monkeypatch):
    """A large export goes through the broker: the worker builds the file with the
    requester's view of the data and records it on the job."""

    def run_here(job_id):
        raise AssertionError(f"export job {job_id} ran in the test process, not the worker")

    monkeypatch.setattr(exports, "run_export_job", run_here)
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover)
    register_all(event, [UserFactory(username=f"player{n}") for n in range(1, 5)])
    tournament_services.start_event(event, actor=organizer)
    play_round(event, organizer)

    job = exports.start_export_job(
        organizer, event, kind="standings", file_format="csv", estimated_rows=4
    )

    job = wait_until_finished(job, worker)
    assert job.status == ExportJob.Status.DONE, f"{job.error}\n{worker.output()}"
    assert job.total == job.done == 4
    rows = bytes(job.content).decode("utf-8-sig").splitlines()
    assert rows[0].startswith("Place,Top-cut result,Swiss rank,Player,Points"), rows
    assert sorted(row.split(",")[3] for row in rows[1:]) == [
        "player1",
        "player2",
        "player3",
        "player4",
    ]
    assert f"Task {EXPORT_TASK_NAME}[" in worker.log(), worker.output()
