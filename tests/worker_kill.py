"""Shared parts of the tests that kill a real Celery worker mid-job (kill -9) and check
that the job completes once, within a minute (issue #15): the job tasks routed to a queue
of the test's own, workers in process groups of their own, the kills, and the waits.

A test module takes the fixtures by assignment (``start_worker = worker_kill.start_worker``,
as with ``tests.test_celery_worker.broker``).

Redis keeps a dead worker's task until its visibility timeout (an hour): there the test
process plays Celery beat and runs the watchdog (``config.requeue_stalled_jobs``) every
second, which sends a job whose heartbeat is older than the lease to the test's queue.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from config.jobs import TrackedJob, requeue_stalled_jobs, tracked_job_models
from tests.test_celery_worker import (
    WORKER_READY_TIMEOUT,
    Worker,
    launch_worker,
    routed_to_broker,
)

# A job must complete within this many seconds of its worker's restart.
RESUME_TIMEOUT = 60


def job_tasks() -> tuple[str, ...]:
    """The task of every kind of job, and the watchdog that sends them again."""
    return (*(model.task_name for model in tracked_job_models()), "config.requeue_stalled_jobs")


@pytest.fixture
def jobs_queue(broker):
    with routed_to_broker(broker, "test-jobs", job_tasks()) as name:
        yield name


@pytest.fixture
def start_worker(broker, jobs_queue, tmp_path):
    """``start(label, concurrency=1)``: a prefork worker on the test's queue, in a process
    group of its own (so kill -9 of the group takes its pool children), once it is ready
    (``ready=False``: at once; the test calls ``wait_ready`` itself). Every worker started
    is stopped (and its group killed) after the test."""
    started: list[Worker] = []

    def start(label: str, *, concurrency: int = 1, ready: bool = True) -> Worker:
        nodename = f"{jobs_queue}-{label}@{socket.gethostname()}"
        worker = launch_worker(
            broker,
            jobs_queue,
            nodename,
            tmp_path / label,
            pool="prefork",
            concurrency=concurrency,
            own_session=True,
        )
        started.append(worker)
        if ready:
            worker.wait_ready(WORKER_READY_TIMEOUT)
        return worker

    yield start
    for worker in started:
        if worker.process.poll() is None:
            worker.stop()
        kill_group(worker)


def kill_group(worker: Worker) -> None:
    """kill -9 of the worker and its pool children."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(worker.process.pid, signal.SIGKILL)
    worker.process.wait(timeout=15)


def pool_children(worker: Worker) -> list[int]:
    path = Path(f"/proc/{worker.process.pid}/task/{worker.process.pid}/children")
    return [int(pid) for pid in path.read_text().split()]


def kill_pool_children(worker: Worker, count: int) -> None:
    """kill -9 of the worker's ``count`` pool children (the worker itself lives on)."""
    children = pool_children(worker)
    assert len(children) == count, children
    for child in children:
        os.kill(child, signal.SIGKILL)


def _logs(workers: list[Worker]) -> str:
    return "\n".join(worker.output() for worker in workers)


def wait_until_started(
    jobs: list[TrackedJob], workers: list[Worker], started: Callable[[TrackedJob], bool]
) -> None:
    """Wait until ``started(job)`` holds for every job, none of which may finish first."""
    deadline = time.monotonic() + RESUME_TIMEOUT
    while True:
        for job in jobs:
            job.refresh_from_db()
            if job.finished:
                pytest.fail(f"{job!r} finished before the kill\n{_logs(workers)}")
        if all(started(job) for job in jobs):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"{jobs!r} did not start\n{_logs(workers)}")
        time.sleep(0.02)


def wait_until_finished(
    jobs: list[TrackedJob], workers: list[Worker], *, watchdog: bool, since: float | None = None
) -> float:
    """Wait for every job to finish (with ``watchdog``, run it every second as Celery beat
    would); returns the seconds it took since ``since`` (``time.monotonic()``; now)."""
    started = time.monotonic() if since is None else since
    while True:
        for job in jobs:
            job.refresh_from_db()
        if all(job.finished for job in jobs):
            return time.monotonic() - started
        if time.monotonic() - started > RESUME_TIMEOUT:
            states = ", ".join(f"{job!r} {job.status} {job.done}/{job.total}" for job in jobs)
            pytest.fail(f"after {RESUME_TIMEOUT}s: {states}\n{_logs(workers)}")
        if watchdog:
            requeue_stalled_jobs()
        time.sleep(1)
