"""Background jobs that report their progress (card imports, deck re-checks, exports).

A concrete job model inherits :class:`TrackedJob` and names the Celery task that runs it
(:attr:`TrackedJob.task_name`, declared with :func:`job_task`). The task claims the job with
:meth:`TrackedJob.claim` (so a redelivered task does not run a finished job again, nor one
another worker is running with a fresh heartbeat), reports progress (its heartbeat) with
:meth:`TrackedJob.report_progress` and ends with :meth:`TrackedJob.finish`, which records the
outcome once, in one transaction with the job's last writes. :func:`requeue_stalled_jobs`
(Celery beat's watchdog) sends again the task of every job whose worker died, or which
still waits long after it was created (its message was lost). The admin
shows a polling progress page through :class:`JobProgressAdminMixin`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import ClassVar

from celery import shared_task
from django.apps import apps
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models.functions import Now
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

logger = logging.getLogger(__name__)

# A running job beats when claimed and at each chunk of work, far more often than this;
# one silent for longer lost its worker (killed, machine gone) and is claimed again by the
# next delivery of its task (the broker's, or the watchdog's: requeue_stalled_jobs).
# The lease must exceed the longest stretch of a job without a committed heartbeat; mind
# the last writes in finish()'s transaction (a card import's rows), whose beats nobody
# sees until it commits. A takeover during such a stretch only wastes work: finish() is
# conditional, so one run's outcome and writes are kept, the other's rolled back.
HEARTBEAT_LEASE = dt.timedelta(seconds=30)
# A job still waiting this long after it was created lost its message (the web process
# died before sending it, the broker was down or lost it, or the delivery that should have
# claimed it failed): the watchdog sends its task again. A duplicate delivery is harmless
# (claim takes the job once).
PENDING_GRACE = dt.timedelta(seconds=60)


class JobStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class TrackedJob(models.Model):
    Status = JobStatus
    # The name of the Celery task that runs this kind of job (its one argument: job_id).
    task_name: ClassVar[str]

    status = models.CharField(
        _("status"), max_length=10, choices=JobStatus.choices, default=JobStatus.PENDING
    )
    total = models.PositiveIntegerField(_("to do"), default=0)
    done = models.PositiveIntegerField(_("done"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("started by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    # Set when claimed and at each chunk of work: a running job whose heartbeat is older
    # than HEARTBEAT_LEASE lost its worker and may be claimed again.
    heartbeat_at = models.DateTimeField(_("last heartbeat"), null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def finished(self) -> bool:
        return self.status in (JobStatus.DONE, JobStatus.FAILED)

    @property
    def percent(self) -> int:
        if self.finished:
            return 100
        if not self.total:
            return 0
        return min(99, self.done * 100 // self.total)

    def progress_text(self) -> str:
        return _("%(done)s of %(total)s done") % {"done": self.done, "total": self.total}

    @classmethod
    def _stale(cls) -> models.Q:
        """Running, and no heartbeat for longer than the lease: its worker is gone. Beats
        are written and compared with the database's clock (``Now()``), never a host's:
        the hosts' clocks may disagree by more than the lease."""
        cutoff = Now() - HEARTBEAT_LEASE
        return models.Q(status=JobStatus.RUNNING) & (
            models.Q(heartbeat_at__isnull=True) | models.Q(heartbeat_at__lt=cutoff)
        )

    @classmethod
    def claim(cls, pk: int) -> bool:
        """Mark the job running, in one conditional UPDATE, if it waits or its worker died.

        A running job is claimed again only once its heartbeat is older than
        :data:`HEARTBEAT_LEASE`: a redelivered message for a job another worker is still
        running does nothing, and neither does one for a finished job. The job keeps its
        ``done``: its function goes on from what it stored, or starts over."""
        claimable = models.Q(status=JobStatus.PENDING) | cls._stale()
        claimed = cls.objects.filter(claimable, pk=pk).update(
            status=JobStatus.RUNNING, heartbeat_at=Now()
        )
        return claimed == 1

    @classmethod
    def _lost(cls) -> models.Q:
        """Waiting for longer than PENDING_GRACE: its task's message never arrived."""
        # created_at is the web host's clock: the grace is long enough for its skew.
        cutoff = Now() - PENDING_GRACE
        return models.Q(status=JobStatus.PENDING, created_at__lt=cutoff)

    @classmethod
    def stalled(cls) -> models.QuerySet:
        """Running jobs whose worker is gone (heartbeat older than the lease), and waiting
        ones whose message was lost (created longer than PENDING_GRACE ago)."""
        return cls.objects.filter(cls._stale() | cls._lost())

    @classmethod
    def beat(cls, pk: int) -> None:
        """The heartbeat alone, for a running job's work that has no progress to store."""
        cls.objects.filter(pk=pk, status=JobStatus.RUNNING).update(heartbeat_at=Now())

    @classmethod
    def report_progress(cls, pk: int, done: int, total: int | None = None) -> None:
        """Store the progress of a running job; this is also its heartbeat."""
        values = {"done": done} if total is None else {"done": done, "total": total}
        cls.objects.filter(pk=pk, status=JobStatus.RUNNING).update(heartbeat_at=Now(), **values)

    def finish(self, status: str, write: Callable[[], dict] | None = None, **fields) -> bool:
        """Record the outcome, once: ``fields`` are the job's own result fields, and
        ``write()`` (if given) does the job's last writes and returns more of them.

        One transaction holds it all. Its first statement marks the job as this run's
        (a conditional UPDATE, which takes the row's lock), so of two runs of the job (the
        lease ran out on a live worker) one finishes and the other writes nothing and gets
        False; a crash rolls back the writes with the outcome, and the next delivery
        starts from a clean state. A finished job is never finished again."""
        job = type(self).objects.filter(
            pk=self.pk, status__in=(JobStatus.PENDING, JobStatus.RUNNING)
        )
        with transaction.atomic():
            now = timezone.now()
            if not job.update(heartbeat_at=now):
                return False
            if write is not None:
                fields.update(write())
            job.update(status=status, finished_at=now, **fields)
        for name, value in fields.items():
            setattr(self, name, value)
        self.status, self.finished_at, self.heartbeat_at = status, now, now
        return True


def job_task(name: str) -> Callable:
    """Declare the Celery task ``name`` that runs one kind of job (the model whose
    ``task_name`` it is). The decorated function runs the job: it takes the job's id and
    returns ``None`` when the job was not claimed (finished, or another worker's)."""

    def declare(run: Callable[[int], object]):
        def task(self, *, job_id: int) -> None:
            if run(job_id) is not None or self.request.is_eager:
                return
            [model] = [m for m in tracked_job_models() if m.task_name == name]
            running = model.objects.filter(pk=job_id, status=JobStatus.RUNNING)
            # The heartbeat's age by the database's clock, as _stale() measures it.
            age = models.ExpressionWrapper(
                Now() - models.F("heartbeat_at"), output_field=models.DurationField()
            )
            for since_beat in running.annotate(age=age).values_list("age", flat=True):
                # A redelivery (a killed pool child's requeued task, RabbitMQ after a dead
                # worker) while the job's heartbeat is still fresh: its worker may be
                # alive, or died just now. Look again once the lease has run out (a
                # second after); a finished job ends this.
                left = (HEARTBEAT_LEASE - since_beat).total_seconds() if since_beat else 0
                raise self.retry(countdown=max(left, 0) + 1)

        task.__module__, task.__name__, task.__doc__ = run.__module__, run.__name__, run.__doc__
        task.__qualname__ = run.__qualname__
        return shared_task(name=name, bind=True, max_retries=None)(task)

    return declare


def tracked_job_models() -> list[type[TrackedJob]]:
    """Every kind of job (the concrete models inheriting TrackedJob)."""
    return [model for model in apps.get_models() if issubclass(model, TrackedJob)]


def requeue_stalled(model: type[TrackedJob]) -> list[int]:
    """Send the task of each job of ``model`` whose worker died (running, no heartbeat for
    ``HEARTBEAT_LEASE``) or whose message was lost (waiting for ``PENDING_GRACE``) again;
    returns their ids. Each message expires before the next
    sweep: a job no worker could take yet is not queued over and over."""
    from config.celery import app

    job_ids = list(model.stalled().order_by("id").values_list("id", flat=True))
    if not job_ids:
        return []
    app.loader.import_default_modules()  # the apps' tasks modules, as a worker has them
    task = app.tasks[model.task_name]
    for job_id in job_ids:
        task.apply_async(kwargs={"job_id": job_id}, expires=settings.JOBS_WATCHDOG_SECONDS)
    logger.warning("%s %s lost their worker or message: queued again", model._meta.label, job_ids)
    return job_ids


@shared_task(name="config.requeue_stalled_jobs")
def requeue_stalled_jobs() -> dict[str, list[int]]:
    """Celery beat's watchdog (every ``JOBS_WATCHDOG_SECONDS``): the jobs of every kind
    whose worker died or whose message was lost are sent again, so each resumes within a
    minute of its worker's death on Redis too, whose own redelivery waits for the
    visibility timeout. Returns the ids sent, by model label."""
    sent = {model._meta.label: requeue_stalled(model) for model in tracked_job_models()}
    return {label: job_ids for label, job_ids in sent.items() if job_ids}


class JobProgressAdminMixin:
    """Adds ``<pk>/progress/`` to a job's admin: a page whose status block polls itself
    (htmx) until the job has finished. ``status_template`` renders that block."""

    status_template: str

    def _progress_name(self) -> str:
        return f"{self.model._meta.app_label}_{self.model._meta.model_name}_progress"

    def get_urls(self):
        return [
            path(
                "<int:pk>/progress/",
                self.admin_site.admin_view(self.progress_view),
                name=self._progress_name(),
            ),
            *super().get_urls(),
        ]

    def progress_url(self, job) -> str:
        return reverse(f"admin:{self._progress_name()}", args=[job.pk])

    def progress_context(self, job) -> dict:
        return {}

    def progress_view(self, request, pk: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        job = get_object_or_404(self.get_queryset(request), pk=pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": str(job),
            "job": job,
            "poll_url": self.progress_url(job),
            "status_template": self.status_template,
            **self.progress_context(job),
        }
        template = self.status_template
        if request.headers.get("HX-Request") != "true":
            template = "admin/job_progress.html"
        return TemplateResponse(request, template, context)
