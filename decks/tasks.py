from celery import shared_task

from config.jobs import HEARTBEAT_LEASE

from . import services
from .models import RecheckJob


@shared_task(name="decks.recheck_format_decks", bind=True, max_retries=None)
def recheck_format_decks(self, *, job_id: int) -> None:
    if services.run_recheck(job_id) is not None or self.request.is_eager:
        return
    if RecheckJob.objects.filter(pk=job_id, status=RecheckJob.Status.RUNNING).exists():
        # A redelivery (a killed pool child's requeued task, RabbitMQ after a dead worker)
        # while the job's heartbeat is still fresh: its worker may be alive, or died just
        # now. Look again once the lease has run out; a finished job ends this.
        raise self.retry(countdown=HEARTBEAT_LEASE.total_seconds() + 1)


@shared_task(name="decks.requeue_stalled_rechecks")
def requeue_stalled_rechecks() -> None:
    """Celery beat's watchdog: re-checks whose worker died are sent again."""
    services.requeue_stalled_rechecks()
