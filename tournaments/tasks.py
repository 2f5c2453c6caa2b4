"""Background work of the tournaments app (thin: STYLE habit 5)."""

from celery import shared_task

from . import exports


@shared_task(name="tournaments.build_export")
def build_export(*, job_id: int) -> None:
    """Build an export job's file; harmless to run again (the job is claimed first)."""
    exports.run_export_job(job_id)
