from config.jobs import job_task

from . import services


@job_task("decks.recheck_format_decks")
def recheck_format_decks(job_id: int):
    """Re-check the decks of a format (resumes a job whose worker died)."""
    return services.run_recheck(job_id)
