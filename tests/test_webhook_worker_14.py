"""A webhook delivery is never lost when its Celery worker dies mid-send (issue 14).

Through a real broker (Redis, RabbitMQ) and real ``celery -A config worker`` processes, as
``tests/test_celery_worker.py`` does: publishing a round queues the delivery; the first
worker claims it and POSTs it to a receiver on 127.0.0.1 that holds the request open; the
test kills that worker with SIGKILL while it waits for the answer, then starts a second
worker with Celery beat. Once the claim's lease runs out, beat's sweep queues the delivery
again and the second worker sends it: the receiver gets it (a second time: the receiver
dedupes by ``X-Crossover-Delivery``) and the row ends ``delivered``, within 60 s.

Skipped without the broker service, except under CI, where that is a failure.
"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests import test_celery_worker as worker_tests
from tests.decks import conftest as deck_fixtures
from tests.test_celery_worker import (
    WORKER_READY_TIMEOUT,
    Worker,
    launch_worker,
    routed_to_broker,
)
from tests.tournaments.factories import UserFactory, open_event, register_all
from tournaments import services
from tournaments.models import Webhook, WebhookDelivery, WebhookKind

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WEBHOOK_TASKS = ("tournaments.deliver_webhook", "tournaments.sweep_webhooks")
DELIVERY_TIMEOUT = 60
# The second worker may take the delivery over this long after the first one claimed it.
LEASE_SECONDS = 5


broker = worker_tests.broker  # Redis and RabbitMQ


@pytest.fixture
def webhook_queue(broker):
    """Webhook tasks from this process go to ``broker``, on a queue of this test's own."""
    with routed_to_broker(broker, "test-webhooks", WEBHOOK_TASKS) as name:
        yield name


class HoldingReceiver:
    """An HTTP server on 127.0.0.1: the first POST is held open (no answer) until
    ``release``; every later one is answered 200 at once."""

    def __init__(self):
        self.requests: list[dict] = []
        self.first_arrived = threading.Event()
        self.released = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append({"headers": dict(self.headers), "body": body})
                if len(receiver.requests) == 1:
                    receiver.first_arrived.set()
                    receiver.released.wait(DELIVERY_TIMEOUT)
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender is dead

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    server = HoldingReceiver()
    yield server
    server.close()


@pytest.fixture
def start_worker(broker, webhook_queue, tmp_path, transactional_db):
    """Start Celery worker subprocesses on the webhook queue with the test database."""
    started: list[Worker] = []

    def start(label: str, *, beat: bool = False) -> Worker:
        nodename = f"{webhook_queue}-{label}@{socket.gethostname()}"
        env = {
            "WEBHOOKS_QUEUE": webhook_queue,
            "WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true",
            # The first worker must still be waiting for the answer when it is killed.
            "WEBHOOKS_TIMEOUT": str(DELIVERY_TIMEOUT),
            "WEBHOOKS_LEASE_SECONDS": str(LEASE_SECONDS),
            "WEBHOOKS_SWEEP_SECONDS": "1",
        }
        args = ("--beat", "--schedule", str(tmp_path / f"beat-{label}")) if beat else ()
        worker = launch_worker(
            broker, webhook_queue, nodename, tmp_path / label, env=env, args=args
        )
        started.append(worker)
        worker.wait_ready(WORKER_READY_TIMEOUT)
        return worker

    yield start
    for worker in started:
        worker.stop()


def wait_for(condition, what: str, workers: list[Worker], timeout: float = DELIVERY_TIMEOUT):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            logs = "\n".join(worker.output() for worker in workers)
            pytest.fail(f"{what}: not within {timeout}s\n{logs}")
        time.sleep(0.2)


def test_delivery_survives_a_worker_killed_mid_send(crossover, receiver, start_worker, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = True
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover)
    register_all(event, [UserFactory(username=f"player{n}") for n in range(1, 5)])
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    Webhook.objects.create(
        event=event,
        url=receiver.url,
        secret="a-test-secret-of-some-length",
        kinds=[WebhookKind.ROUND_PUBLISHED],
    )
    first = start_worker("first")

    services.publish_round(round_, actor=organizer)  # commits, then queues the delivery

    delivery = WebhookDelivery.objects.get()
    if not receiver.first_arrived.wait(DELIVERY_TIMEOUT):
        pytest.fail(f"the first worker never posted the delivery\n{first.output()}")
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("sending", 1), first.output()

    first.process.kill()  # SIGKILL while it waits for the receiver's answer
    first.process.wait(timeout=15)
    receiver.released.set()
    killed_at = time.monotonic()

    second = start_worker("second", beat=True)

    def delivered():
        delivery.refresh_from_db()
        return delivery.status == "delivered"

    wait_for(delivered, "the delivery was not sent again", [first, second])
    assert time.monotonic() - killed_at < DELIVERY_TIMEOUT
    assert len(receiver.requests) >= 2, second.output()
    uids = {request["headers"]["X-Crossover-Delivery"] for request in receiver.requests}
    assert uids == {str(delivery.uid)}
    bodies = {request["body"] for request in receiver.requests}
    assert bodies == {delivery.body.encode()}
    assert delivery.attempts == 2, second.output()
    assert [entry["error"] for entry in delivery.attempt_log] == ["worker lost", ""]
    assert delivery.last_status_code == 200
    assert "tournaments.sweep_webhooks" in second.log(), second.output()
    assert Path(second.stdout).exists()
