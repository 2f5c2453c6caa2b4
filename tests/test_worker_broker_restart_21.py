"""The Celery worker rides out a restart of its broker while it holds a job, and systemd
keeps the worker and beat running (issue #21).

Each broker test starts a Redis or RabbitMQ of its own on free ports in a temporary
directory (never the shared ones), then the worker and beat with the command lines of
``deploy/systemd/crossover-worker.service`` and ``crossover-beat.service`` (this checkout
and interpreter instead of /srv/crossover). While the worker runs a card import of
``CARDS`` rows, the broker is stopped and, ``DOWN`` seconds later, started again on the
same port. The worker must still be running, finish that import, run an import queued as
soon as the broker is back, and run beat's watchdog again. Before the fix (config/celery.py)
the worker on Redis exited at once: "Unrecoverable error: AttributeError("'NoneType' object
has no attribute 'hostname'")".

``-s`` shows the measured times. Skipped without redis-server / rabbitmq-server, except
under CI, where that is a failure.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection

from cardpool import services as cardpool_services
from cardpool.models import ImportJob
from config.celery import app
from tests.test_celery_worker import (
    WORKER_READY_TIMEOUT,
    Worker,
    _drop_broker_connections,
    _worker_database_url,
)
from tests.test_job_once_15 import new_game
from tests.worker_kill import wait_until_started

# worker_kill: .ci/run runs these beside the two suites (mostly waiting on brokers).
pytestmark = [pytest.mark.worker_kill, pytest.mark.django_db(transaction=True)]

UNITS = Path(settings.BASE_DIR) / "deploy" / "systemd"
# Where the units expect the site: a checkout with the .venv that `./dev prod` makes.
INSTALLED_AT = "/srv/crossover"
CARDS = 15_000  # rows of the import in flight: several seconds of work
DOWN = 3  # seconds the broker stays down
BROKER_START_TIMEOUT = 90
JOB_TIMEOUT = 90
WATCHDOG_SECONDS = 2  # beat's JOBS_WATCHDOG_SECONDS here


# --- the units ------------------------------------------------------------------------


def read_unit(name: str) -> dict[str, dict[str, str]]:
    """A systemd unit file as {section: {key: value}} (no key repeats in ours)."""
    sections: dict[str, dict[str, str]] = {}
    section = None
    for line in (UNITS / name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = sections.setdefault(line[1:-1], {})
            continue
        key, separator, value = line.partition("=")
        assert section is not None, f"{name}: a line before the first section: {line!r}"
        assert separator, f"{name}: not a key=value line: {line!r}"
        assert key.strip() not in section, f"{name}: {key.strip()} given twice"
        section[key.strip()] = value.strip()
    return sections


def exec_start(name: str) -> list[str]:
    return shlex.split(read_unit(name)["Service"]["ExecStart"])


def here(argv: list[str]) -> list[str]:
    """A unit's ExecStart run from this checkout with the interpreter running the tests."""
    assert argv[0] == f"{INSTALLED_AT}/.venv/bin/celery", argv
    return [sys.executable, "-m", "celery", *argv[1:]]


WORKER_ARGV = [f"{INSTALLED_AT}/.venv/bin/celery", "-A", "config", "worker", "--loglevel=INFO"]
BEAT_ARGV = [
    f"{INSTALLED_AT}/.venv/bin/celery",
    "-A",
    "config",
    "beat",
    "--loglevel=INFO",
    "--schedule",
    "/var/lib/crossover/celerybeat-schedule",
]


@pytest.mark.parametrize(
    ("name", "argv"),
    [("crossover-worker.service", WORKER_ARGV), ("crossover-beat.service", BEAT_ARGV)],
)
def test_unit_runs_celery_from_the_checkout_and_restarts_it_always(name, argv):
    unit = read_unit(name)
    service = unit["Service"]
    assert service["ExecStart"].split() == argv
    assert service["WorkingDirectory"] == INSTALLED_AT  # where `-A config` is found
    assert service["Type"] == "simple"  # celery stays in the foreground
    assert (service["Restart"], service["RestartSec"]) == ("always", "5")
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"  # never gives up restarting
    assert service["EnvironmentFile"] == "/etc/crossover/env"
    assert (service["User"], service["Group"]) == ("crossover", "crossover")
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    # The command is real: the celery that `./dev prod` installs in the checkout's .venv,
    # as in the interpreter running the tests, with the app beside it.
    assert os.access(Path(sys.executable).with_name("celery"), os.X_OK)
    assert (Path(settings.BASE_DIR) / "config" / "celery.py").is_file()


def test_beat_unit_keeps_its_schedule_in_its_state_directory():
    service = read_unit("crossover-beat.service")["Service"]
    assert service["StateDirectory"] == "crossover"
    argv = shlex.split(service["ExecStart"])
    schedule = Path(argv[argv.index("--schedule") + 1])
    assert schedule.parent == Path("/var/lib") / service["StateDirectory"]


def test_worker_unit_stops_with_a_warm_shutdown_then_kills_the_pool():
    service = read_unit("crossover-worker.service")["Service"]
    assert service.get("KillSignal", "SIGTERM") == "SIGTERM"  # Celery's warm shutdown
    assert (service["KillMode"], service["TimeoutStopSec"]) == ("mixed", "60")


def test_readme_production_section_points_at_the_units():
    readme = (Path(settings.BASE_DIR) / "README.md").read_text(encoding="utf-8")
    production = readme.split("## Production", 1)[1].split("\n## ", 1)[0]
    assert "deploy/systemd/crossover-worker.service" in production
    assert "deploy/systemd/crossover-beat.service" in production


def test_units_pass_systemd_analyze_verify(tmp_path):
    """The units as installed for this checkout (its path, its .venv's celery)."""
    systemd_analyze = shutil.which("systemd-analyze")
    if systemd_analyze is None:
        pytest.skip("systemd-analyze is not installed")
    celery = str(Path(sys.executable).with_name("celery"))
    installed = []
    for name in ("crossover-worker.service", "crossover-beat.service"):
        text = (UNITS / name).read_text(encoding="utf-8")
        text = text.replace(f"{INSTALLED_AT}/.venv/bin/celery", celery)
        text = text.replace(INSTALLED_AT, str(settings.BASE_DIR))
        (tmp_path / name).write_text(text, encoding="utf-8")
        installed.append(str(tmp_path / name))
    verified = subprocess.run(
        [systemd_analyze, "verify", *installed],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (verified.returncode, verified.stdout, verified.stderr) == (0, "", "")


# --- brokers of the test's own ----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _program(name: str) -> str:
    path = shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/usr/bin") / name) if p.exists()),
        None,
    )
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed; CI must run these tests", pytrace=False)
        pytest.skip(f"{name} is not installed")
    return path


class OwnBroker:
    """A broker process of the test's own: ``start()``, ``stop()`` (a clean stop, as a
    restart does), ``close()`` (stop whatever runs and remove its files)."""

    service: str
    url: str

    def __init__(self, directory: Path):
        self.directory = directory
        self.process: subprocess.Popen | None = None
        self.log = directory / "broker.log"

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command(),
                cwd=self.directory,
                env=self.environment(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + BROKER_START_TIMEOUT
        while not self.accepts_connections():
            if self.process.poll() is not None:
                pytest.fail(f"{self.service} exited on start\n{self.output()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{self.service} did not start in time\n{self.output()}")
            time.sleep(0.2)

    def accepts_connections(self) -> bool:
        try:
            with Connection(self.url, connect_timeout=1) as connection:
                connection.connect()
            return True
        except Exception:
            return False

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(Exception):
                self.stop()
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]


class OwnRedis(OwnBroker):
    service = "Redis"

    def __init__(self, directory: Path):
        super().__init__(directory)
        self.program = _program("redis-server")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        # Append-only file: what was queued survives the restart, as on a server.
        return [
            self.program,
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.directory),
            "--appendonly",
            "yes",
            "--save",
            "",
        ]


class OwnRabbitMQ(OwnBroker):
    service = "RabbitMQ"

    def __init__(self, directory: Path):
        super().__init__(directory)
        self.program = _program("rabbitmq-server")
        self.ctl = _program("rabbitmqctl")
        self.port = free_port()
        self.node = f"crossover-test-{uuid.uuid4().hex[:8]}@localhost"
        self.url = f"amqp://guest:guest@127.0.0.1:{self.port}//"
        (directory / "enabled_plugins").write_text("[].\n")  # no management listener
        if os.geteuid() == 0:
            # Debian's wrapper runs the node as the rabbitmq user.
            with contextlib.suppress(KeyError):
                account = pwd.getpwnam("rabbitmq")
                for path in (directory, *directory.iterdir()):
                    os.chown(path, account.pw_uid, account.pw_gid)

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(free_port()),
            "RABBITMQ_MNESIA_BASE": str(self.directory / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.directory / "log"),
            "RABBITMQ_PID_FILE": str(self.directory / "node.pid"),
            # None of the machine's configuration, plugins or listeners.
            "RABBITMQ_CONFIG_FILE": str(self.directory / "no-config"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(self.directory / "no-advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.directory / "enabled_plugins"),
        }

    def command(self) -> list[str]:
        return [self.program]

    def stop(self) -> None:
        subprocess.run(
            [self.ctl, "-n", self.node, "stop"],
            env=self.environment(),
            capture_output=True,
            timeout=90,
            check=False,
        )
        self.process.wait(timeout=60)

    def output(self) -> str:
        logs = sorted((self.directory / "log").glob("*.log"))
        return super().output() + "".join(p.read_text(errors="replace")[-4000:] for p in logs)


@pytest.fixture(params=["redis", "rabbitmq"])
def own_broker(request):
    kind = {"redis": OwnRedis, "rabbitmq": OwnRabbitMQ}[request.param]
    # Not pytest's tmp_path: its parent is private to this user, and RabbitMQ's node runs
    # as another.
    directory = Path(tempfile.mkdtemp(prefix=f"crossover-{request.param}-"))
    directory.chmod(0o755)
    broker = None
    try:
        broker = kind(directory)
        broker.start()
        yield broker
    finally:
        if broker is not None:
            broker.close()
        shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def published_to(broker: OwnBroker):
    """Tasks sent from this process go to ``broker`` (the settings make them eager)."""
    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    _drop_broker_connections()
    app.conf.update(task_always_eager=False, broker_url=broker.url)
    try:
        yield
    finally:
        _drop_broker_connections()
        app.conf.update(saved)


def start_celery(argv: list[str], broker: OwnBroker, logs: Path, nodename: str) -> Worker:
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "insecure-key-for-the-test-worker",
        "DEBUG": "false",
        "DATABASE_URL": _worker_database_url(),
        "CELERY_BROKER_URL": broker.url,
        "JOBS_WATCHDOG_SECONDS": str(WATCHDOG_SECONDS),
        "PYTHONUNBUFFERED": "1",
    }
    stdout, stderr = logs.with_suffix(".stdout"), logs.with_suffix(".stderr")
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            argv,
            cwd=settings.BASE_DIR,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    return Worker(process, stdout, stderr, nodename)


def stop_celery(process: Worker) -> None:
    if process.process.poll() is None:
        process.process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.process.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.process.pid, signal.SIGKILL)
    process.process.wait(timeout=15)


def card_file(rows: int, prefix: str) -> bytes:
    lines = ["name,set,card_type", *(f"{prefix}{n:05d},base,CHARACTER" for n in range(rows))]
    return "\n".join(lines).encode("utf-8")


def claimed(job) -> bool:
    return job.status == job.Status.RUNNING


def wait_until_done(job, processes: list[Worker], since: float) -> float:
    """Seconds from ``since`` until ``job`` finished; fails if the worker exits first."""
    worker = processes[0]
    while True:
        job.refresh_from_db()
        if job.finished:
            return time.monotonic() - since
        if worker.process.poll() is not None:
            logs = "\n".join(process.output() for process in processes)
            pytest.fail(f"the worker exited; job {job.pk} is {job.status!r}\n{logs}")
        if time.monotonic() - since > JOB_TIMEOUT:
            logs = "\n".join(process.output() for process in processes)
            pytest.fail(f"job {job.pk} is {job.status!r} after {JOB_TIMEOUT}s\n{logs}")
        time.sleep(0.1)


def test_worker_rides_out_a_broker_restart_with_a_job_in_flight(own_broker, tmp_path, request):
    game = new_game("restart")
    nodename = f"celery@{socket.gethostname()}"  # the unit names none: Celery's default
    with published_to(own_broker):
        worker = start_celery(
            here(exec_start("crossover-worker.service")), own_broker, tmp_path / "worker", nodename
        )
        beat_argv = here(exec_start("crossover-beat.service"))
        beat_argv[beat_argv.index("--schedule") + 1] = str(tmp_path / "celerybeat-schedule")
        beat = start_celery(beat_argv, own_broker, tmp_path / "beat", "beat")
        processes = [worker, beat]
        try:
            worker.wait_ready(WORKER_READY_TIMEOUT)
            job = cardpool_services.create_import_job(
                game=game, filename="big.csv", content=card_file(CARDS, "在庫カード")
            )
            wait_until_started([job], [worker], claimed)
            time.sleep(0.3)

            own_broker.stop()
            time.sleep(DOWN)
            own_broker.start()
            back_at = time.monotonic()
            worker_log_before = len(worker.log())
            after = cardpool_services.create_import_job(
                game=game, filename="after.csv", content=card_file(3, "復帰カード")
            )

            took = wait_until_done(after, processes, back_at)
            wait_until_done(job, processes, back_at)
            # Beat (its own connection) queues the watchdog again, and the worker runs it.
            deadline = time.monotonic() + 30
            while "Task config.requeue_stalled_jobs[" not in worker.log()[worker_log_before:]:
                assert time.monotonic() < deadline, "\n".join(p.output() for p in processes)
                time.sleep(0.2)
            print(
                f"\n[broker restart] {request.node.name}: the job queued when "
                f"{own_broker.service} was back ran to completion after {took:.1f}s"
            )

            logs = "\n".join(process.output() for process in processes)
            assert worker.process.poll() is None, logs
            assert beat.process.poll() is None, logs
            assert "Unrecoverable error" not in worker.log(), logs
            assert "Connection to broker lost" in worker.log(), logs  # it did see it
            job.refresh_from_db()
            after.refresh_from_db()
            assert (job.status, job.report["cards_created"]) == (ImportJob.Status.DONE, CARDS)
            assert (after.status, after.report["cards_created"]) == (ImportJob.Status.DONE, 3)
        finally:
            for process in processes:
                stop_celery(process)
