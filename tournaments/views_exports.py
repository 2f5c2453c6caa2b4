"""Exports of standings, pairings and decklists (CSV, JSON, XLSX) with background jobs.

``export/<kind>.<fmt>`` answers with the file, or for a large export (more than
``EXPORT_SYNC_LIMIT`` rows) starts an :class:`~tournaments.models.ExportJob` and sends
the user to its progress page, which polls itself (htmx) until the download is ready.
Who may export what is who may see it (``tournaments.exports`` builds through the
policy's filters); a job is seen only by its requester and superusers (others: 404).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, re_path, reverse
from django.utils.cache import patch_cache_control
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from . import exports
from .models import ExportFormat, ExportJob, ExportKind
from .services.errors import NotAllowed
from .views import _event_and_access, positive_int_param

KINDS = "|".join(ExportKind.values)
FORMATS = "|".join(ExportFormat.values)


def file_response(file: exports.ExportFile) -> HttpResponse:
    response = HttpResponse(file.content, content_type=file.content_type)
    response["Content-Disposition"] = content_disposition_header(True, file.filename)
    # Decklists and drafts are not for shared caches.
    patch_cache_control(response, private=True, no_cache=True)
    return response


@require_safe
def export(request, pk: str, kind: str, fmt: str):
    event, access = _event_and_access(request, int(pk))
    round_number = None
    if kind == ExportKind.PAIRINGS:
        round_number = positive_int_param(request, "round")
        if round_number is None:
            context = {
                "event": event,
                "field": "round",
                "message": _("Say which round: add ?round=N (a round number) to the address."),
            }
            return render(request, "tournaments/exports/invalid.html", context, status=400)
    try:
        outcome = exports.export(
            request.user,
            event,
            kind=kind,
            file_format=fmt,
            round_number=round_number,
            access=access,
        )
    except NotAllowed as error:
        if error.code == "login_required":
            return redirect_to_login(request.get_full_path())
        raise
    if isinstance(outcome, ExportJob):
        return redirect("tournaments:export_job", pk=event.pk, job_id=outcome.pk)
    return file_response(outcome)


def _job(request, pk: int, job_id: int):
    event, _access = _event_and_access(request, pk)
    job = get_object_or_404(exports.export_jobs_visible_to(request.user), pk=job_id, event=event)
    return event, job


@login_required
@require_safe
def export_job(request, pk: int, job_id: int):
    """The job's progress; an htmx request gets the status block alone (polled every
    second until the job has finished)."""
    event, job = _job(request, pk, job_id)
    template = "tournaments/exports/job.html"
    if request.headers.get("HX-Request") == "true":
        template = "tournaments/exports/_job_status.html"
    context = {
        "event": event,
        "job": job,
        "poll_url": reverse("tournaments:export_job", args=[event.pk, job.pk]),
        "retry_url": export_url(job),
    }
    return render(request, template, context)


@login_required
@require_safe
def export_job_download(request, pk: int, job_id: int):
    event, job = _job(request, pk, job_id)
    if job.status != ExportJob.Status.DONE:
        return redirect("tournaments:export_job", pk=event.pk, job_id=job.pk)
    return file_response(exports.job_file(job))


def export_url(job: ExportJob) -> str:
    url = reverse(
        "tournaments:export",
        kwargs={"pk": job.event_id, "kind": job.kind, "fmt": job.file_format},
    )
    return f"{url}?round={job.round_number}" if job.round_number else url


urlpatterns = [
    re_path(
        rf"^(?P<pk>[0-9]+)/export/(?P<kind>{KINDS})\.(?P<fmt>{FORMATS})$",
        export,
        name="export",
    ),
    path("<int:pk>/exports/<int:job_id>/", export_job, name="export_job"),
    path(
        "<int:pk>/exports/<int:job_id>/download/",
        export_job_download,
        name="export_job_download",
    ),
]
