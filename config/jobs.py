"""Background jobs that report their progress (card imports, deck re-checks, exports).

A concrete job model inherits :class:`TrackedJob`; its Celery task claims it with
:meth:`TrackedJob.claim` (so a redelivered task does not run a finished job again, nor one
another worker is running with a fresh heartbeat), reports
progress with :meth:`TrackedJob.report_progress` and ends with :meth:`TrackedJob.finish`.
The admin shows a polling progress page through :class:`JobProgressAdminMixin`.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# A job with a heartbeat (RecheckJob) beats when claimed and at each chunk of work, far
# more often than this; one silent for longer lost its worker (killed, machine gone) and is
# claimed again by the next delivery of its task (the broker's, or the watchdog's:
# decks.tasks.requeue_stalled_rechecks).
HEARTBEAT_LEASE = dt.timedelta(seconds=30)


class JobStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class TrackedJob(models.Model):
    Status = JobStatus

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
    def _beats(cls) -> bool:
        """Whether this kind of job records a heartbeat (a ``heartbeat_at`` field)."""
        return any(field.name == "heartbeat_at" for field in cls._meta.concrete_fields)

    @classmethod
    def _stale(cls) -> models.Q:
        """Running, and no heartbeat for longer than the lease: its worker is gone."""
        cutoff = timezone.now() - HEARTBEAT_LEASE
        return models.Q(status=JobStatus.RUNNING) & (
            models.Q(heartbeat_at__isnull=True) | models.Q(heartbeat_at__lt=cutoff)
        )

    @classmethod
    def claim(cls, pk: int) -> bool:
        """Mark the job running unless it has finished, in one conditional UPDATE.

        A job with a heartbeat is claimed again only once its heartbeat is older than
        :data:`HEARTBEAT_LEASE` (its worker died): a redelivered message for a job another
        worker is still running does nothing, and the job keeps its ``done`` (it resumes
        from what it stored). Without a heartbeat a running job may always be claimed
        again (those job functions start over and must be harmless to repeat)."""
        if cls._beats():
            claimable = models.Q(status=JobStatus.PENDING) | cls._stale()
            claimed = cls.objects.filter(claimable, pk=pk).update(
                status=JobStatus.RUNNING, heartbeat_at=timezone.now()
            )
            return claimed == 1
        claimed = cls.objects.filter(
            pk=pk, status__in=[JobStatus.PENDING, JobStatus.RUNNING]
        ).update(status=JobStatus.RUNNING, done=0)
        return claimed == 1

    @classmethod
    def stalled(cls) -> models.QuerySet:
        """Running jobs whose worker is gone (heartbeat older than the lease)."""
        return cls.objects.filter(cls._stale()) if cls._beats() else cls.objects.none()

    @classmethod
    def report_progress(cls, pk: int, done: int, total: int | None = None) -> None:
        """Store the progress; for a job with a heartbeat this is also its heartbeat."""
        values = {"done": done} if total is None else {"done": done, "total": total}
        if cls._beats():
            values["heartbeat_at"] = timezone.now()
        cls.objects.filter(pk=pk).update(**values)

    def finish(self, status: str, **fields) -> None:
        """Record the outcome; ``fields`` are the job's own result fields."""
        for name, value in fields.items():
            setattr(self, name, value)
        self.status = status
        self.finished_at = timezone.now()
        self.save(update_fields=["status", "finished_at", *fields])


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
