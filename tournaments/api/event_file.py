"""The event file through the API (docs/event-file.md)::

    events/{event_pk}/event-file/   GET: the event file (JSON)
    event-files/                    POST: import one (the document as the JSON body, or a
                                    multipart upload in ``file``)

The same rules and functions as the pages (``tournaments.views_event_file``): the staff
get the whole file (``?private=1``: with e-mail addresses, organizer only:
``not_organizer``), anyone else who may see the event the public file once the rounds
are under way (``event_file_not_public`` before). An import is for anyone who may create
events; the importer becomes the organizer unless the file's organizer has their
username; a file of an event already here replaces it, for its organizer only
(``not_organizer``). A refused file is a 400 ``event_file_rejected`` with every problem in
``details.problems`` (``[{"path", "message"}]``), and nothing is written; NUL (U+0000) in
an uploaded file is such a problem, with its JSON path (in a JSON body, the NUL middleware
answers first: ``invalid_input`` with ``details.field``, config/nul.py).
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from ..event_file import EventFileRejected, read_document
from ..services.errors import InvalidInput
from ..views_event_file import (
    EVENT_FILE_MAX_BYTES,
    event_file_for,
    import_as,
)
from .exports import OneObjectSchema
from .parsers import JSONParser
from .views import EVENT_PK, EventScopedMixin, TournamentErrorsMixin, errors

# Room for a multipart body's boundaries and part headers around the file.
MULTIPART_OVERHEAD = 64 * 1024


class ProblemSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="JSON path in the file, e.g. `rounds[2].matches[5]`.")
    message = serializers.CharField()


class ImportResultSerializer(serializers.Serializer):
    event = serializers.IntegerField(help_text="The imported event's id on this site.")
    url = serializers.CharField(help_text="Its page.")
    created = serializers.BooleanField(
        help_text="False: an event with the file's uid was replaced."
    )
    counts = serializers.DictField(child=serializers.IntegerField())
    users_created = serializers.ListField(
        child=serializers.CharField(),
        help_text="Usernames given inactive placeholder accounts (to be claimed).",
    )


def rejected(problems) -> InvalidInput:
    return InvalidInput(
        "event_file_rejected",
        f"the event file was refused: {len(problems)} problem(s); nothing was written",
        problems=[{"path": p.path, "message": p.message} for p in problems],
    )


@extend_schema(tags=["event file"])
class EventFileViewSet(EventScopedMixin, viewsets.ViewSet):
    schema = OneObjectSchema()

    @extend_schema(
        operation_id="events_event_file",
        summary="The event file",
        description="The whole event as one `crossover-event/1` document "
        "(docs/event-file.md) for its staff; `private=1` adds the players' e-mail "
        "addresses (the organizer or a site admin only: `not_organizer`). Anyone else who "
        "may see the event gets the public file once the rounds are under way (published "
        "rounds and results; no e-mails, staff, penalties, deck checks, audit log, or "
        "decklists before they are public); before that `event_file_not_public`.",
        parameters=[
            EVENT_PK,
            OpenApiParameter("private", OpenApiTypes.BOOL, description="Add e-mails."),
        ],
        responses={200: OpenApiTypes.OBJECT, **errors(403, 404)},
    )
    def list(self, request, event_pk=None):
        private = request.query_params.get("private") in ("1", "true", "on")
        return Response(event_file_for(self.event, self.access, private=private))


@extend_schema(tags=["event file"])
class EventFileImportViewSet(TournamentErrorsMixin, viewsets.ViewSet):
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser, MultiPartParser]

    @extend_schema(
        operation_id="event_files_import",
        summary="Import an event file",
        description="Recreate the event of a `crossover-event/1` document (the JSON body, "
        "or a multipart upload in `file`): players are matched to accounts by username, "
        "the others get inactive placeholder accounts; the caller becomes the organizer "
        "unless the file's organizer has their username. `201` for a new event, `200` when "
        "the file's event (same `uid`) was here and is replaced (its organizer only: "
        "`not_organizer`). A refused file is `event_file_rejected` with every problem in "
        "`details.problems` (`[{path, message}]`); nothing is written.",
        request=OpenApiTypes.OBJECT,
        responses={
            200: ImportResultSerializer,
            201: ImportResultSerializer,
            **errors(400, 403),
        },
    )
    def create(self, request):
        # Refused before the body is read. A multipart body is a little larger than its
        # file (read_document checks the file itself).
        multipart = request.content_type.startswith("multipart/")
        limit = EVENT_FILE_MAX_BYTES + (MULTIPART_OVERHEAD if multipart else 0)
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > limit:
            raise InvalidInput(
                "file_too_large",
                f"the file is larger than {EVENT_FILE_MAX_BYTES} bytes",
                limit=EVENT_FILE_MAX_BYTES,
            )
        upload = request.FILES.get("file") if multipart else None
        if upload is not None:
            document, problems = read_document(upload.read())
            if problems:
                raise rejected(problems)
        elif request.content_type.startswith("multipart/"):
            raise InvalidInput("file_missing", "send the event file in the field 'file'")
        else:
            document = request.data
        try:
            outcome = import_as(document, request.user)
        except EventFileRejected as error:
            raise rejected(error.problems) from None
        data = {
            "event": outcome.event.pk,
            "url": reverse("tournaments:event_detail", args=[outcome.event.pk]),
            "created": outcome.created,
            "counts": outcome.counts,
            "users_created": outcome.users_created,
        }
        return Response(
            ImportResultSerializer(data).data,
            status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK,
        )


def register_routes(router, nested: str) -> None:
    router.register(nested + "/event-file", EventFileViewSet, basename="event-file")
    router.register("event-files", EventFileImportViewSet, basename="event-file-import")
