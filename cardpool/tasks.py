from celery import shared_task

from . import services


@shared_task(name="cardpool.import_card_file")
def import_card_file(*, job_id: int) -> None:
    services.run_import_job(job_id)
