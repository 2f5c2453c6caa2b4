import functools
import logging
import os

from celery import Celery
from celery.contrib.django.task import DjangoTask
from celery.worker.consumer import Consumer
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnreachable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)


class SiteTask(DjangoTask):
    """Every task of the site. ``delay_on_commit()`` (DjangoTask's) enqueues only once the
    surrounding database transaction has committed, so a worker never looks for rows that
    a rolled-back (or not yet visible) transaction wrote.

    A broker that cannot be reached then does not turn the request that started a job
    into a 500 (issue #21): the job's row is committed and stays pending, and the
    watchdog (``config.jobs``, every ``JOBS_WATCHDOG_SECONDS``) sends it again once it
    has waited ``PENDING_GRACE``; the failure is logged. Only the broker's own error is
    caught: in eager mode (no broker) a task's errors still propagate."""

    def delay_on_commit(self, *args, **kwargs) -> None:
        transaction.on_commit(functools.partial(self._send_or_leave_to_watchdog, args, kwargs))

    def _send_or_leave_to_watchdog(self, args, kwargs) -> None:
        try:
            self.delay(*args, **kwargs)
        except BrokerUnreachable:
            logger.warning(
                "task %s %s not queued: the broker cannot be reached; "
                "the jobs watchdog sends it again",
                self.name,
                kwargs,
                exc_info=True,
            )


app = Celery("config", task_cls=SiteTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def route_webhook_tasks(name, args, kwargs, options, task=None, **extra):
    """Webhook tasks go to ``settings.WEBHOOKS_QUEUE`` when it is set (a slow receiver
    then never holds up imports and exports); other tasks to the default queue."""
    from django.conf import settings

    queue = getattr(settings, "WEBHOOKS_QUEUE", "")
    if queue and name in ("tournaments.deliver_webhook", "tournaments.sweep_webhooks"):
        return {"queue": queue}
    return None


app.conf.task_routes = (route_webhook_tasks,)


class BrokerLossTolerantConsumer(Consumer):
    """The worker's consumer, which survives the loss of a Redis broker while it holds a task
    (issue #21).

    On a lost connection Celery 5.7.0 first runs ``connection.collect()``, then closes the
    same connection with ``ignore_errors``, which ignores only connection and channel errors.
    When the broker vanished mid-BRPOP, kombu's Redis channel fails to close inside
    ``collect()`` (reading the BRPOP reply raises ConnectionError, before the channel is
    marked closed), and ``collect()`` then detaches the transport from the connection
    (``transport.client = None``). The second close reaches the same channel again; with a
    task unacknowledged it restores that message through a new client built from
    ``transport.client.hostname``: AttributeError, which escapes ``ignore_errors``, and the
    worker exits with "Unrecoverable error: AttributeError(\"'NoneType' object has no
    attribute 'hostname'\")". Celery's and kombu's main branches do the same.

    The broken connection is thrown away right after that close, so whatever its close
    raises is logged and ignored here; the worker then reconnects as usual.

    The task in flight goes on in its pool process. When it ends, its acknowledgement goes
    to the channel it came from, whose transport is now detached: kombu fails the same way
    (AttributeError, not a connection error, so Celery does not log it and go on as it does
    for a RabbitMQ channel that is gone, but the worker exits). Such a message cannot be
    acknowledged: Redis keeps it among the unacknowledged ones and delivers it again after
    the visibility timeout (RabbitMQ has requeued it already), which a finished job ignores
    (config/jobs.py). That failure is logged and ignored; any other goes on as before.
    """

    def call_soon_ack(self, p, *args, **kwargs):
        # p: the delivering message's ack_log_error or reject_log_error.
        message = getattr(p, "__self__", None)

        def acknowledge(*call_args, **call_kwargs):
            try:
                return p(*call_args, **call_kwargs)
            except AttributeError:
                if not _of_a_lost_connection(message):
                    raise
                logger.warning(
                    "task message %s came over a broker connection that was lost: not "
                    "acknowledged (the broker delivers it again; a finished job ignores it)",
                    message.delivery_tag,
                )

        return super().call_soon_ack(acknowledge, *args, **kwargs)

    def on_connection_error_after_connected(self, exc):
        connection = self.connection
        if connection is not None:
            close = connection.close

            def close_broken_connection():
                try:
                    close()
                except Exception:
                    logger.warning(
                        "closing the lost broker connection failed; reconnecting anyway",
                        exc_info=True,
                    )

            # Only this connection object, which the consumer drops right after.
            connection.close = close_broken_connection
        super().on_connection_error_after_connected(exc)


def _of_a_lost_connection(message) -> bool:
    """Whether ``message`` came over a kombu connection that has been closed since (its
    channel's transport is detached from the connection)."""
    transport = getattr(getattr(message, "channel", None), "connection", None)
    return transport is not None and transport.client is None


app.conf.worker_consumer = f"{__name__}:BrokerLossTolerantConsumer"
