"""Background jobs that report their progress (card imports, deck re-checks, exports).

A concrete job model inherits :class:`TrackedJob` and names the Celery task that runs it
(:attr:`TrackedJob.task_name`, declared with :func:`job_task`). The task claims the job with
:meth:`TrackedJob.claim` (so a redelivered task does not run a finished job again, nor one
another worker is running with a fresh heartbeat), reports progress (its heartbeat) with
:meth:`TrackedJob.report_progress` and ends with :meth:`TrackedJob.finish`, which records the
outcome once, in one transaction with the job's last writes. :func:`requeue_stalled_jobs`
(Celery beat's watchdog) sends again the task of every job whose worker died, or which
still waits long after it was created (its message was lost). The admin
shows a polling progress page through :class:`JobProgressAdminMixin`, with a button that
runs a failed job again.

A database blip (a killed connection, a restart, a serialization failure, a deadlock) is
not a job's failure: :func:`retry_transient` drops the broken connection and runs the work
again (a job resumes from what it committed), and one still failing is given back to the
watchdog (:meth:`TrackedJob.release`). Each claim is an attempt, counted on the job; after
:data:`MAX_ATTEMPTS` the job ends failed, for staff to run again.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import ClassVar, TypeVar

from celery import shared_task
from django.apps import apps
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError, connections, models, transaction
from django.db.models.functions import Now
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

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
# Runs of a job (claims) before it ends failed without another automatic one: the first
# delivery and two more by the broker or the watchdog. Staff may run it again from the admin.
MAX_ATTEMPTS = 3
# Errors of the database, not of the job: a connection killed (pg_terminate_backend, a
# restart, a network cut) or refused, a serialization failure, a deadlock (Django raises
# these PostgreSQL errors as OperationalError). Worth another try on a new connection.
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError)
# Seconds to wait before each new try within one attempt (retry_transient); together far
# shorter than HEARTBEAT_LEASE, so a live job does not look dead while it waits.
RETRY_DELAYS = (1.0, 2.0, 4.0)

T = TypeVar("T")


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
    # Runs so far (each claim is one); at MAX_ATTEMPTS no more automatic ones. A re-run by
    # staff starts the count again.
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    # The field that keeps why the job failed (or why its last attempt did, while it waits
    # for the next): a text field, or as error_fields() puts it.
    error_field: ClassVar[str] = "error"

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

    @property
    def max_attempts(self) -> int:
        return MAX_ATTEMPTS

    @classmethod
    def error_fields(cls, message: str) -> dict:
        """The fields that record ``message`` as the job's error ("" clears it)."""
        return {cls.error_field: message}

    def error_text(self) -> str:
        """The recorded error, as error_fields() stored it."""
        return getattr(self, self.error_field)

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
        ``done``: its function goes on from what it stored, or starts over.

        Each claim is an attempt (``attempts`` counts them): a job that has had
        :data:`MAX_ATTEMPTS` is not claimed again, and one of those whose worker is gone
        ends failed here (:meth:`give_up`)."""
        claimable = (models.Q(status=JobStatus.PENDING) | cls._stale()) & models.Q(
            attempts__lt=MAX_ATTEMPTS
        )
        claimed = cls.objects.filter(claimable, pk=pk).update(
            status=JobStatus.RUNNING,
            heartbeat_at=Now(),
            attempts=models.F("attempts") + 1,
            **cls.error_fields(""),  # the previous attempt's, if any: this one starts afresh
        )
        if claimed != 1:
            cls.give_up(cls.objects.filter(pk=pk))
            return False
        return True

    @classmethod
    def _lost(cls) -> models.Q:
        """Waiting for longer than PENDING_GRACE: its task's message never arrived."""
        # created_at is the web host's clock: the grace is long enough for its skew.
        cutoff = Now() - PENDING_GRACE
        return models.Q(status=JobStatus.PENDING, created_at__lt=cutoff)

    @classmethod
    def stalled(cls) -> models.QuerySet:
        """Running jobs whose worker is gone (heartbeat older than the lease), and waiting
        ones whose message was lost (created longer than PENDING_GRACE ago); not those
        that have had their :data:`MAX_ATTEMPTS` (see :meth:`give_up`)."""
        return cls.objects.filter(cls._stale() | cls._lost(), attempts__lt=MAX_ATTEMPTS)

    @classmethod
    def give_up(cls, jobs: models.QuerySet) -> list[int]:
        """End failed each of ``jobs`` that has had its :data:`MAX_ATTEMPTS` and whose
        last worker is gone (or gave it back): no more automatic attempts. Its error is
        kept (the last attempt's, as :meth:`release` recorded it), or says that none was
        recorded. Returns their ids."""
        exhausted = jobs.filter(cls._stale(), attempts__gte=MAX_ATTEMPTS)
        given_up = []
        for job in exhausted.only("pk", "attempts", cls.error_field):
            error = job.error_text() or "no error recorded: the worker died or lost the database"
            ended = cls.objects.filter(cls._stale(), pk=job.pk).update(
                status=JobStatus.FAILED, finished_at=Now(), **cls.error_fields(error)
            )
            if ended:
                given_up.append(job.pk)
        if given_up:
            logger.error(
                "%s %s failed %s times: no more automatic attempts",
                cls._meta.label,
                given_up,
                MAX_ATTEMPTS,
            )
        return given_up

    def release(self, exc: BaseException) -> None:
        """Give the job back after its attempt failed on the database (``exc``, a
        transient error that outlasted :func:`retry_transient`): its heartbeat is cleared,
        so the watchdog's next sweep sends it again, and the error is kept for staff to
        see. The last attempt ends the job failed instead. If the database is still out
        of reach nothing is written: the heartbeat then runs out by itself."""
        error = repr(exc)
        try:
            if self.attempts_so_far() >= MAX_ATTEMPTS:
                self.finish(JobStatus.FAILED, **self.error_fields(error))
                return
            running = type(self).objects.filter(pk=self.pk, status=JobStatus.RUNNING)
            running.update(heartbeat_at=None, **self.error_fields(error))
        except TRANSIENT_DB_ERRORS:
            logger.exception("%s %s: could not give the job back", self._meta.label, self.pk)
            _drop_broken_connections()

    def attempts_so_far(self) -> int:
        return type(self).objects.filter(pk=self.pk).values_list("attempts", flat=True).get()

    @property
    def rerunnable(self) -> bool:
        """Failed, or running without a live worker (its heartbeat ran out): staff may
        run it again."""
        if self.status == JobStatus.FAILED:
            return True
        return type(self).objects.filter(type(self)._stale(), pk=self.pk).exists()

    def rerun(self) -> bool:
        """Send a failed job (or one whose worker is gone) to a worker again, with a new
        count of attempts and its error cleared; returns False (and changes nothing) for a
        job that is waiting, running or done. The task is sent once this transaction
        commits; the job goes on from what it stored, as after a worker's death."""
        again = models.Q(status=JobStatus.FAILED) | type(self)._stale()
        sent = (
            type(self)
            .objects.filter(again, pk=self.pk)
            .update(
                status=JobStatus.PENDING,
                attempts=0,
                heartbeat_at=None,
                finished_at=None,
                **self.error_fields(""),
            )
        )
        if not sent:
            return False
        from config.celery import app

        app.loader.import_default_modules()
        task = app.tasks[self.task_name]
        task.delay_on_commit(job_id=self.pk)
        self.refresh_from_db(fields=["status", "attempts", "heartbeat_at", "finished_at"])
        return True

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


def _drop_broken_connections() -> None:
    """Close every connection of this thread that is not inside a transaction, so the
    next query opens a new one (a connection the server killed stays broken for good).
    One inside a transaction is left alone: closing it would break the transaction."""
    for connection in connections.all(initialized_only=True):
        if connection.in_atomic_block:
            continue
        try:
            connection.close()
        except TRANSIENT_DB_ERRORS:
            connection.connection = None  # closing a dead connection may fail too


def retry_transient(work: Callable[[], T], *, what: str) -> T:
    """``work()``, tried again after a transient database error (:data:`TRANSIENT_DB_ERRORS`)
    on a new connection, once after each of :data:`RETRY_DELAYS`; the error of the last
    try is raised. ``work`` must be harmless to repeat after a failure: a job's work is,
    since it goes on from what it committed (``what`` names it in the log)."""
    delays = RETRY_DELAYS
    for tries, delay in enumerate((*delays, None), start=1):
        try:
            return work()
        except TRANSIENT_DB_ERRORS as exc:
            if delay is None:
                raise
            logger.warning(
                "%s: database error (%r) on try %s of %s; again in %s s on a new connection",
                what,
                exc,
                tries,
                len(delays) + 1,
                delay,
            )
            _drop_broken_connections()
            time.sleep(delay)
    raise AssertionError("unreachable")


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
    ``HEARTBEAT_LEASE``, or given back after a database error) or whose message was lost
    (waiting for ``PENDING_GRACE``) again; returns their ids. A job that has had its
    ``MAX_ATTEMPTS`` ends failed instead (:meth:`TrackedJob.give_up`). Each message
    expires before the next sweep: a job no worker could take yet is not queued over and over."""
    from config.celery import app

    model.give_up(model.objects.all())
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
    (htmx) until the job has finished. ``status_template`` renders that block. A failed
    job (or one whose worker is gone) shows a button that runs it again
    (``<pk>/rerun/``, POST), for staff who may change this kind of job; each re-run is
    written to the admin's history of the job (who, when, after which error)."""

    status_template: str

    def _progress_name(self) -> str:
        return f"{self.model._meta.app_label}_{self.model._meta.model_name}_progress"

    def _rerun_name(self) -> str:
        return f"{self.model._meta.app_label}_{self.model._meta.model_name}_rerun"

    def get_urls(self):
        return [
            path(
                "<int:pk>/progress/",
                self.admin_site.admin_view(self.progress_view),
                name=self._progress_name(),
            ),
            path(
                "<int:pk>/rerun/",
                self.admin_site.admin_view(require_POST(self.rerun_view)),
                name=self._rerun_name(),
            ),
            *super().get_urls(),
        ]

    def progress_url(self, job) -> str:
        return reverse(f"admin:{self._progress_name()}", args=[job.pk])

    def progress_context(self, job) -> dict:
        return {}

    def has_rerun_permission(self, request) -> bool:
        """The model's change permission (the job admins refuse changes to the record
        itself, so their has_change_permission says no)."""
        opts = self.model._meta
        return request.user.has_perm(f"{opts.app_label}.{get_permission_codename('change', opts)}")

    @admin.display(description=_("status"), ordering="status")
    def job_status(self, job):
        """The status, linked to the job's progress page (where a failed job is re-run)."""
        label = job.get_status_display()
        if job.status == JobStatus.FAILED:
            label = ngettext(
                "%(status)s after %(attempts)s attempt",
                "%(status)s after %(attempts)s attempts",
                job.attempts,
            ) % {"status": label, "attempts": job.attempts}
        return format_html('<a href="{}">{}</a>', self.progress_url(job), label)

    def progress_view(self, request, pk: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        job = get_object_or_404(self.get_queryset(request), pk=pk)
        may_rerun = self.has_rerun_permission(request) and job.rerunnable
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": str(job),
            "job": job,
            "poll_url": self.progress_url(job),
            "status_template": self.status_template,
            "rerun_url": reverse(f"admin:{self._rerun_name()}", args=[job.pk]) if may_rerun else "",
            **self.progress_context(job),
        }
        template = self.status_template
        if request.headers.get("HX-Request") != "true":
            template = "admin/job_progress.html"
        return TemplateResponse(request, template, context)

    def rerun_view(self, request, pk: int):
        """Run the job again (:meth:`TrackedJob.rerun`) and record who did, after what."""
        if not self.has_rerun_permission(request):
            raise PermissionDenied
        job = get_object_or_404(self.get_queryset(request), pk=pk)
        before = (job.get_status_display(), job.attempts, job.error_text())
        if job.rerun():
            self.log_change(
                request,
                job,
                gettext("Run again (was: %(status)s after %(attempts)s attempts; %(error)s)")
                % {"status": before[0], "attempts": before[1], "error": before[2] or "-"},
            )
            messages.success(request, gettext("The job was sent to a worker again."))
        else:
            messages.warning(
                request,
                gettext("Only a failed job, or one whose worker is gone, can be run again."),
            )
        return redirect(self.progress_url(job))
