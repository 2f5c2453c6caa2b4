"""Lists under one event that not everyone may read, and the staff's management:

    events/{event_pk}/staff/          list (the event's staff), create and destroy (the
                                      organizer)
    events/{event_pk}/penalties/      list, retrieve: all for the staff, a player's own
    events/{event_pk}/decklists/      list, retrieve: ``policy.decklists_visible_to``
    events/{event_pk}/audit/          list (the staff; ``?action=`` filters)

Built on :mod:`.views` (the event fetched through the policy, 404 when hidden; the one
error shape). The staff and the audit log are for signed-in users only: an anonymous
caller gets 403 ``not_authenticated`` there, like on every command.
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from .. import policy, selectors, services
from ..models import AuditEntry, EventStaff, Penalty, Registration
from . import serializers as s
from .views import (
    COMMAND_ERRORS,
    EVENT_PK,
    READ_ERRORS,
    EventScopedMixin,
    _input,
    errors,
    user_by_username,
)

STAFF_READ_ERRORS = errors(403, 404)


def _require_staff(access: policy.EventAccess) -> None:
    policy.require(access.is_staff, "not_staff", "event staff only")


@extend_schema(
    tags=["staff"],
    parameters=[EVENT_PK],
    responses={200: s.StaffSerializer, **STAFF_READ_ERRORS},
)
class StaffViewSet(EventScopedMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """The event's co-organizers and judges (the organizer is the event's
    ``organizer``)."""

    model = EventStaff
    permission_classes = [IsAuthenticated]
    serializer_class = s.StaffSerializer
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        return selectors.staff_list(self.request.user, self.event, self.access)

    @extend_schema(
        summary="The event's staff (staff)",
        description="Co-organizers and judges, by role; the event's staff only (`not_staff`).",
        responses={200: s.StaffSerializer(many=True), **STAFF_READ_ERRORS},
    )
    def list(self, request, event_pk=None):
        _require_staff(self.access)
        return super().list(request, event_pk=event_pk)

    @extend_schema(
        summary="Add a co-organizer or judge (the organizer)",
        description="By username. A player of the event cannot be on its staff "
        "(`user_is_player`), nor the organizer (`user_is_organizer`).",
        request=s.StaffInputSerializer,
        responses={201: s.StaffSerializer, **COMMAND_ERRORS},
    )
    def create(self, request, event_pk=None):
        event = self.event
        data = _input(s.StaffInputSerializer, request)
        policy.require(policy.can_manage_staff(self.access), "not_organizer")
        staff = services.add_staff(
            event, actor=request.user, user=user_by_username(data["username"]), role=data["role"]
        )
        staff = self.get_queryset().get(pk=staff.pk)
        return Response(s.StaffSerializer(staff).data, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Remove a co-organizer or judge (the organizer)",
        description="The id is the staff entry's (from the list), not the user's.",
        request=None,
        responses={204: OpenApiResponse(description="Removed."), **errors(403, 404)},
    )
    def destroy(self, request, event_pk=None, pk=None):
        policy.require(policy.can_manage_staff(self.access), "not_organizer")
        staff = self.get_object()
        staff.event = self.event
        services.remove_staff(staff, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    tags=["penalties"],
    parameters=[EVENT_PK],
    responses={200: s.PenaltySerializer, **READ_ERRORS},
)
@extend_schema_view(
    list=extend_schema(
        summary="Penalties, newest first",
        description="Every penalty for the event's staff, a player's own for the player, "
        "none for anyone else.",
    ),
    retrieve=extend_schema(summary="One penalty", description="Only one the caller may see."),
)
class PenaltyViewSet(EventScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Penalties, newest first: every one for the event's staff, a player's own for the
    player, none for anyone else (``policy.penalties_visible_to``)."""

    model = Penalty
    serializer_class = s.PenaltySerializer
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        return selectors.penalty_list(self.request.user, self.event, self.access).select_related(
            "infraction_ref"
        )


@extend_schema(
    tags=["decklists"],
    parameters=[EVENT_PK],
    responses={200: s.DecklistSerializer, **READ_ERRORS},
)
@extend_schema_view(
    list=extend_schema(
        summary="Submitted decklists, by player",
        description="All for the event's staff or once the event makes them public "
        "(`decklists_public_from`), otherwise only the caller's own.",
    ),
    retrieve=extend_schema(
        summary="One decklist",
        description="By registration id; one the caller may not see is `not_found`.",
    ),
)
class DecklistViewSet(EventScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Submitted decklists the caller may see (``policy.decklists_visible_to``): all for
    the staff or once the event makes them public, otherwise only the caller's own. The id
    is the registration's."""

    model = Registration
    serializer_class = s.DecklistSerializer
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        return selectors.decklist_list(self.request.user, self.event, self.access)


@extend_schema(
    tags=["audit"],
    parameters=[
        EVENT_PK,
        OpenApiParameter(
            "action", str, description="Only entries of this action, e.g. `round.closed`."
        ),
    ],
    summary="The event's audit log (staff)",
    description="Every change, newest first: who, when, what, why, before and after. The "
    "event's staff only (`not_staff`).",
    responses={200: s.AuditEntrySerializer(many=True), **STAFF_READ_ERRORS},
)
class AuditViewSet(EventScopedMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    model = AuditEntry
    permission_classes = [IsAuthenticated]
    serializer_class = s.AuditEntrySerializer
    filter_backends: list = []  # the one filter is read below

    def scoped_queryset(self):
        policy.require(policy.can_view_audit(self.access), "not_staff", "event staff only")
        entries = selectors.audit_log(self.request.user, self.event, self.access).order_by(
            "-created_at", "-id"
        )
        action = self.request.query_params.get("action")
        return entries.filter(action=action) if action else entries


def register_routes(router, nested: str) -> None:
    router.register(nested + "/staff", StaffViewSet, basename="event-staff")
    router.register(nested + "/penalties", PenaltyViewSet, basename="event-penalty")
    router.register(nested + "/decklists", DecklistViewSet, basename="event-decklist")
    router.register(nested + "/audit", AuditViewSet, basename="event-audit")
