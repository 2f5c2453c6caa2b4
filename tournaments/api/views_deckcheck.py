"""Deck checks for the event's staff (rule 1−2−4)::

    events/{event_pk}/deck-checks/              list, create (staff)
    events/{event_pk}/deck-checks/{id}/         retrieve (staff)
    events/{event_pk}/deck-checks/{id}/penalty/ issue a penalty for a failed check (staff)

Built on :mod:`.views` (the event fetched through the policy, 404 when hidden; the one
error shape). Staff only: anyone else signed in gets 403 ``not_staff``, an anonymous
caller 403 ``not_authenticated``. Create and penalty call the same services as the pages
(``services.deck_checks``).
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.utils.translation import get_language
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from .. import infractions, policy, selectors
from ..models import DeckCheck, Penalty
from ..services import deck_checks
from ..services.errors import InvalidInput
from . import serializers as s
from .views import COMMAND_ERRORS, EVENT_PK, EventScopedMixin, _input, errors, event_match

STAFF_READ_ERRORS = errors(403, 404)


@extend_schema(
    tags=["deck checks"],
    parameters=[EVENT_PK],
    responses={200: s.DeckCheckSerializer, **STAFF_READ_ERRORS},
)
@extend_schema_view(
    list=extend_schema(
        summary="Deck checks, newest first (staff)",
        description="Every deck check of the event; the event's staff only (`not_staff`).",
    ),
    retrieve=extend_schema(summary="One deck check (staff)"),
)
class DeckCheckViewSet(
    EventScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    model = DeckCheck
    permission_classes = [IsAuthenticated]
    serializer_class = s.DeckCheckSerializer
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        policy.require(policy.can_judge(self.access), "not_staff", "event staff only")
        return deck_checks.deck_checks_for(
            self.request.user, self.event, self.access
        ).prefetch_related(
            Prefetch("penalties", queryset=Penalty.objects.only("id", "deck_check_id"))
        )

    @extend_schema(
        summary="Record a deck check (staff)",
        description="Compare the cards on the table (`counted_text` as a decklist, and/or "
        "`cards` counted per card) with the player's registered list: the answer says "
        "whether they are the list after legal swaps (same deck size, swapped cards from "
        "the registered sideboard, 1−2−4) and lists every discrepancy. An unreadable line "
        "or unknown card is `counted_unreadable` (each in `details.problems`), "
        "`unknown_card`, `unknown_printing` or `invalid_count` (`details.index`).",
        request=s.DeckCheckInputSerializer,
        responses={201: s.DeckCheckSerializer, **COMMAND_ERRORS},
    )
    def create(self, request, event_pk=None):
        event = self.event
        policy.require(policy.can_judge(self.access), "not_staff", "event staff only")
        data = _input(s.DeckCheckInputSerializer, request)
        registration = (
            selectors.registration_list(request.user, event, self.access)
            .select_related("event__format__game")
            .filter(pk=data["registration"])
            .first()
        )
        if registration is None:
            raise InvalidInput(
                "registration_not_found",
                "no such registration in this event",
                field="registration",
            )
        round_ = None
        if data.get("round") is not None:
            round_ = (
                policy.rounds_visible_to(request.user, event, self.access)
                .filter(number=data["round"])
                .first()
            )
            if round_ is None:
                raise InvalidInput("round_not_found", "no such round in this event", field="round")
        cards = [
            deck_checks.CountedCard(
                name=item["name"],
                printing=item.get("printing") or None,
                main=item["main"],
                side=item["side"],
            )
            for item in data["cards"]
        ]
        check = deck_checks.record_deck_check(
            registration,
            actor=request.user,
            counted_text=data["counted_text"],
            cards=cards,
            round_=round_,
            note=data["note"],
        )
        check = self.get_queryset().get(pk=check.pk)
        return Response(s.DeckCheckSerializer(check).data, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Issue a penalty for a failed deck check (staff)",
        description="One step: the infraction defaults to `deck_mismatch`, the note to the "
        "check's discrepancies, the match to the player's match in the check's round; the "
        "penalty refers to the check. A check that found the "
        "deck as registered is `deck_check_ok`, a second penalty `deck_check_has_penalty`.",
        request=s.DeckCheckPenaltyInputSerializer,
        responses={201: s.DeckCheckPenaltySerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def penalty(self, request, event_pk=None, pk=None):
        check = self.get_object()
        data = _input(s.DeckCheckPenaltyInputSerializer, request)
        match = None
        if data.get("match") is not None:
            match = event_match(request, self.event, self.access, data["match"])
        elif check.round_id is not None:
            # As the page does: the player's match in the check's round, if there is one.
            match = (
                policy.matches_visible_to(request.user, self.event, self.access)
                .filter(
                    round_id=check.round_id,
                    participants__registration_id=check.registration_id,
                )
                .first()
            )
        infraction = infractions.find(
            self.event, data["infraction_code"] or deck_checks.DECK_MISMATCH
        )
        if infraction is None:
            raise InvalidInput(
                "infraction_not_found",
                "no such infraction in the list of the event's game",
                field="infraction_code",
            )
        note = data["note"]
        if note is None:
            note = deck_checks.summary(check, get_language() or "en")
        check.event = self.event
        penalty = deck_checks.issue_deck_check_penalty(
            check,
            actor=request.user,
            infraction=infraction,
            kind=data["kind"] or None,
            note=note,
            match=match,
        )
        penalty = (
            selectors.penalty_list(request.user, self.event, self.access)
            .select_related("infraction_ref")
            .get(pk=penalty.pk)
        )
        return Response(s.DeckCheckPenaltySerializer(penalty).data, status.HTTP_201_CREATED)


def register_routes(router, nested: str) -> None:
    router.register(nested + "/deck-checks", DeckCheckViewSet, basename="event-deck-check")
