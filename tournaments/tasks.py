"""Background work of the tournaments app (thin: STYLE habit 5)."""

import logging

from celery import shared_task
from celery.signals import worker_ready

from config.jobs import job_task

from . import exports


@job_task("tournaments.build_export")
def build_export(job_id: int):
    """Build an export job's file (stored with the job's outcome in one transaction)."""
    return exports.run_export_job(job_id)


@shared_task(name="tournaments.deliver_webhook")
def deliver_webhook(*, delivery_id: int) -> None:
    """POST one webhook delivery; harmless to run again (the delivery is claimed first,
    and a delivered or failed one is left alone)."""
    from . import webhooks

    webhooks.deliver(delivery_id)


@shared_task(name="tournaments.sweep_webhooks")
def sweep_webhooks() -> None:
    """Queue the webhook deliveries that are due or whose worker died mid-send (Celery
    beat, every WEBHOOKS_SWEEP_SECONDS)."""
    from . import webhooks

    webhooks.sweep()


@worker_ready.connect
def sweep_webhooks_on_start(sender=None, **kwargs) -> None:
    """A worker that starts queues what a dead one left behind (the lease permitting)."""
    from . import webhooks

    try:
        webhooks.sweep()
    except Exception:  # the worker must start even if the database is not there yet
        logging.getLogger(__name__).exception("webhook sweep at worker start failed")
