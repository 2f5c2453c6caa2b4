from config.jobs import job_task

from . import services


@job_task("cardpool.import_card_file")
def import_card_file(job_id: int):
    """Import an uploaded card file (all rows and the job's outcome in one transaction)."""
    return services.run_import_job(job_id)
