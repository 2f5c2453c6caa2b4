from celery import shared_task

from . import services


@shared_task(name="decks.recheck_format_decks")
def recheck_format_decks(*, job_id: int) -> None:
    services.run_recheck(job_id)
