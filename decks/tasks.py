from celery import shared_task

from . import services


@shared_task(name="decks.recheck_format_decks")
def recheck_format_decks(*, job_id: int) -> None:
    services.run_recheck(job_id)


@shared_task(name="decks.requeue_stalled_rechecks")
def requeue_stalled_rechecks() -> None:
    """Celery beat's watchdog: re-checks whose worker died are sent again."""
    services.requeue_stalled_rechecks()
