"""API routes for exports (registered from ``config/urls.py`` under ``api/v1/``)::

    events/{event_pk}/export/?kind=…&format=…[&round=N]   the file, or 202 and a job
    export-jobs/{id}/                                      the job: status and progress
    export-jobs/{id}/download/                             the finished job's file

Same rules as the pages (``tournaments.exports``): a user exports what they may see; an
event or round they may not see is a 404; a job is seen only by its requester and
superusers (others: 404). Errors have the ``{code, message, details}`` shape.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from .. import exports, policy
from ..models import ExportFormat, ExportJob, ExportKind, Round
from ..services.errors import Conflict
from ..views_exports import file_response
from .limits import ModelIntegerField
from .schema import OneObjectSchema
from .views import EVENT_PK, TournamentErrorsMixin, errors

# --- serializers -------------------------------------------------------------------------


class ExportQuerySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ExportKind.values, help_text="What to export.")
    format = serializers.ChoiceField(choices=ExportFormat.values, help_text="The file format.")
    round = ModelIntegerField(
        Round,
        "number",
        min_value=1,
        required=False,
        help_text="The round number; required for `pairings`.",
    )

    def validate(self, data):
        if data["kind"] == ExportKind.PAIRINGS and "round" not in data:
            raise serializers.ValidationError({"round": ["required for pairings"]})
        return data


class ExportJobSerializer(serializers.ModelSerializer):
    format = serializers.CharField(source="file_format", help_text="csv, json or xlsx.")
    round = serializers.IntegerField(source="round_number", allow_null=True)
    percent = serializers.IntegerField(help_text="0–100; 100 once finished.")
    progress = serializers.SerializerMethodField(help_text='Like "120 of 5000 done".')
    url = serializers.SerializerMethodField(help_text="This job (poll it).")
    download_url = serializers.SerializerMethodField(
        help_text="The file, once `status` is `done`; null before."
    )

    class Meta:
        model = ExportJob
        fields = [
            "id",
            "event",
            "kind",
            "format",
            "round",
            "status",
            "done",
            "total",
            "percent",
            "progress",
            "filename",
            "created_at",
            "finished_at",
            "url",
            "download_url",
        ]
        read_only_fields = fields

    def get_progress(self, job) -> str:
        return str(job.progress_text())

    def _absolute(self, url: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url

    def get_url(self, job) -> str:
        return self._absolute(reverse("export-job-detail", args=[job.pk]))

    def get_download_url(self, job) -> str | None:
        if job.status != ExportJob.Status.DONE:
            return None
        return self._absolute(reverse("export-job-download", args=[job.pk]))


# --- views ---------------------------------------------------------------------------------


class ExportNegotiation(DefaultContentNegotiation):
    """``?format=`` here names the export's file format, not a DRF renderer: answers other
    than the file (errors, the job) are always JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


FILE_DESCRIPTION = (
    "The file, as an attachment: CSV (UTF-8 with a byte order mark), JSON (a list of "
    "objects) or XLSX. In CSV and XLSX a text cell starting with `=`, `+`, `-`, `@`, tab "
    "or carriage return gets a leading `'` (no formula runs); JSON keeps values unchanged."
)
# JSON is a list of objects (one per row, the columns as keys), not an opaque file.
JSON_ROWS = {"type": "array", "items": {"type": "object", "additionalProperties": True}}
FILE_RESPONSES = {
    (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description=FILE_DESCRIPTION),
    (200, "application/json"): OpenApiResponse(JSON_ROWS, description=FILE_DESCRIPTION),
    (200, exports.CONTENT_TYPES[ExportFormat.XLSX]): OpenApiResponse(
        OpenApiTypes.BINARY, description=FILE_DESCRIPTION
    ),
}


@extend_schema(tags=["exports"])
class ExportViewSet(TournamentErrorsMixin, viewsets.ViewSet):
    permission_classes = [IsAuthenticatedOrReadOnly]
    content_negotiation_class = ExportNegotiation
    # The export route is the router's "list" of its viewset, but answers one object.
    schema = OneObjectSchema()

    @extend_schema(
        operation_id="events_export",
        summary="Export standings, pairings or decklists",
        description="The file (`Content-Disposition: attachment`), built from what the caller "
        "may see: standings and published pairings of a visible event; decklists the caller "
        "may see (all once public or for the staff, otherwise their own). An export of more "
        "than `EXPORT_SYNC_LIMIT` rows is built in the background: the answer is `202` with "
        "the job (also in `Location`); poll `url` until `download_url` is set. A background "
        "export needs a signed-in caller (`login_required`).",
        parameters=[
            EVENT_PK,
            OpenApiParameter("kind", OpenApiTypes.STR, enum=ExportKind.values, required=True),
            OpenApiParameter("format", OpenApiTypes.STR, enum=ExportFormat.values, required=True),
            OpenApiParameter(
                "round", OpenApiTypes.INT, description="Round number; required for pairings."
            ),
        ],
        responses={
            **FILE_RESPONSES,
            202: OpenApiResponse(ExportJobSerializer, description="Built in the background."),
            **errors(400, 403, 404),
        },
    )
    def list(self, request, event_pk=None, **kwargs):
        user = request.user
        event = get_object_or_404(policy.events_visible_to(user), pk=event_pk)
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        outcome = exports.export(
            user,
            event,
            kind=data["kind"],
            file_format=data["format"],
            round_number=data.get("round"),
        )
        if isinstance(outcome, ExportJob):
            # Without a broker the task has already run (eager): answer with its outcome.
            outcome.refresh_from_db(fields=["status", "done", "total", "finished_at", "filename"])
            body = ExportJobSerializer(outcome, context={"request": request}).data
            return Response(body, status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
        return file_response(outcome)


@extend_schema(tags=["exports"], responses={200: ExportJobSerializer, **errors(403, 404)})
class ExportJobViewSet(TournamentErrorsMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """A background export: only its requester (and superusers) see it."""

    serializer_class = ExportJobSerializer
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        return exports.export_jobs_visible_to(self.request.user)

    @extend_schema(
        summary="Download the finished export",
        responses={**FILE_RESPONSES, **errors(403, 404, 409)},
    )
    @action(detail=True, methods=["get"])
    def download(self, request, pk=None):
        job = self.get_object()
        if job.status != ExportJob.Status.DONE:
            raise Conflict("export_not_ready", "the export is not finished", status=job.status)
        return file_response(exports.job_file(job))


def register_routes(router, prefix: str = "events") -> None:
    """Router lines for ``config/urls.py``."""
    router.register(prefix + "/(?P<event_pk>[0-9]+)/export", ExportViewSet, basename="event-export")
    router.register("export-jobs", ExportJobViewSet, basename="export-job")
