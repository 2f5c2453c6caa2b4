"""The tournament API (STYLE habit 8): viewsets whose ``get_queryset`` starts from
``tournaments.policy``'s ``*_visible_to`` filters (through ``tournaments.selectors``), and
commands as ``@action(detail=True, methods=["post"])`` calling the same service function
as the pages.

Routes (registered in ``config/urls.py`` under ``api/v1/``)::

    events/                                   list, retrieve, create, partial_update;
                                              open-registration, start, finish, register,
                                              late-entry, generate-round, top-cut,
                                              advance-bracket, standings
    events/{event_pk}/registrations/          list, retrieve; decklist, drop, reenter,
                                              penalty
    events/{event_pk}/rounds/                 list, retrieve (by number); pairings, publish,
                                              start-clock, close, repair, edit-pairing
    events/{event_pk}/matches/                retrieve; report, confirm, dispute, override
    events/{event_pk}/staff/                  list, create, destroy   (views_lists.py)
    events/{event_pk}/penalties/              list, retrieve          (views_lists.py)
    events/{event_pk}/decklists/              list, retrieve          (views_lists.py)
    events/{event_pk}/audit/                  list                    (views_lists.py)
    events/{event_pk}/deck-checks/            list, create, retrieve; penalty
                                                                      (views_deckcheck.py)

An event the caller may not see is a 404 on every route under it; a missing permission on
a visible object is a 403 (the policy's rule). Every error, domain or DRF, is answered by
:func:`exception_handler` as ``{"code", "message", "details"}``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from django.utils.translation import get_language
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import set_rollback

from .. import infractions, policy, selectors, services, snapshots
from ..models import Event, Match, Registration, Round
from ..services import clock as services_clock
from ..services.clock import MAX_EXTENSION_MINUTES
from ..services.errors import DeckIllegal, InvalidInput, TournamentError
from . import pages
from . import serializers as s
from .limits import MAX_ID

# --- errors: the one place that maps exceptions to responses ---------------------------


def error_response(code: str, message: str, details: dict | None, http_status: int) -> Response:
    return Response(
        {"code": code, "message": message, "details": details or {}}, status=http_status
    )


def request_too_large() -> tuple[str, str, dict, int]:
    """The answer to a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django raises
    ``RequestDataTooBig`` when the body is read): 413 ``request_too_large`` with the limit,
    on every API route (here for the API's views, ``config.urls.handler400`` for a body
    read before them)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return (
        "request_too_large",
        f"the request body is larger than {limit} bytes",
        {"limit": limit},
        status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    )


def _drf_code(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code


def exception_handler(exc, context):
    """Domain errors answer with their own code and status (``TournamentError.http_status``:
    400 invalid input, 403 not allowed, 409 state/conflict/capacity); a deck refused as
    illegal carries the engine's full report. DRF's own errors (field validation, not
    signed in, 404, throttling) get the same shape, and so does a body too large to read
    (:func:`request_too_large`). Anything else is a 500."""
    if isinstance(exc, TournamentError):
        details = dict(exc.details)
        if isinstance(exc, DeckIllegal):
            details["report"] = exc.report.as_dict(language=get_language())
        response = error_response(exc.code, exc.message, details, exc.http_status)
    elif isinstance(exc, Http404):
        response = error_response("not_found", "not found", None, status.HTTP_404_NOT_FOUND)
    elif isinstance(exc, PermissionDenied):
        response = error_response(
            "permission_denied", str(exc) or "permission denied", None, status.HTTP_403_FORBIDDEN
        )
    elif isinstance(exc, exceptions.ValidationError):
        response = error_response(
            "invalid_input",
            "the request has invalid fields",
            {"fields": exc.detail},
            status.HTTP_400_BAD_REQUEST,
        )
    elif isinstance(exc, RequestDataTooBig):
        response = error_response(*request_too_large())
    elif isinstance(exc, exceptions.APIException):
        response = error_response(_drf_code(exc), str(exc.detail), None, exc.status_code)
        if getattr(exc, "wait", None):
            response["Retry-After"] = str(int(exc.wait))
    else:
        return None
    set_rollback()
    return response


def event_id(raw) -> int:
    """The event id in a URL, or Http404: not a number, or past the largest id (the
    database's integer would overflow, a 500)."""
    raw = str(raw)
    if not raw.isdecimal() or int(raw) > MAX_ID:
        raise Http404
    return int(raw)


class TournamentErrorsMixin:
    """Applies :func:`exception_handler` to a viewset."""

    def get_exception_handler(self):
        return exception_handler


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    texts = {
        400: "Invalid input (`invalid_input` with field errors, or a domain code such as "
        "`games_malformed`, `invalid_result`, `reason_required`, `invalid_setting` or "
        "`user_not_found` with the field in `details.field`; `deck_illegal` carries the "
        "legality report in `details.report`).",
        403: "Not signed in (`not_authenticated`) or not allowed (`not_participant`, "
        "`not_staff`, `not_manager`, `not_organizer`, `not_own_registration`, …).",
        404: "No such object, or one the caller may not see (`not_found`).",
        409: "The object's state forbids it (`wrong_event_state`, `setting_locked`, "
        "`round_closed`, `not_reported`, …), another submission won (`stale_version`, "
        "`already_registered`, `already_staff`) or no seat is left (`capacity_full`).",
    }
    return {code: OpenApiResponse(s.ErrorSerializer, description=texts[code]) for code in codes}


READ_ERRORS = errors(404)
COMMAND_ERRORS = errors(400, 403, 404, 409)
EVENT_PK = OpenApiParameter("event_pk", OpenApiTypes.INT, OpenApiParameter.PATH)


def _input(serializer_class, request):
    """The validated input. Commands call it after fetching their object, so a hidden or
    missing object is a 404 whatever the body."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def event_match(request, event, access, match_id):
    """The event's match ``match_id`` as the requester may see it; InvalidInput naming the
    field ``match`` when there is none (a penalty's match is input, not the URL)."""
    match = policy.matches_visible_to(request.user, event, access).filter(pk=match_id).first()
    if match is None:
        raise InvalidInput("match_not_found", "no such match in this event", field="match")
    return match


def user_by_username(username: str, field: str = "username"):
    """The active user named ``username``, or ``user_not_found`` on ``field`` (400).
    Callers check the permission first, so that only those allowed to add a user learn
    whether the name exists."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise InvalidInput("user_not_found", f"no user named {username!r}", field=field)
    return user


# --- events --------------------------------------------------------------------------


@extend_schema(tags=["events"], responses={200: s.EventSerializer, **READ_ERRORS})
class EventViewSet(TournamentErrorsMixin, viewsets.ReadOnlyModelViewSet):
    """Events the caller may see: drafts only by their staff, the rest by anyone. Any
    signed-in user may create one (and is its organizer); its managers change it."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = s.EventSerializer
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        return selectors.event_list(self.request.user).order_by("-date", "-id")

    def _event_answer(self, event, http_status=status.HTTP_200_OK):
        event = selectors.event_list(self.request.user).get(pk=event.pk)
        return Response(s.EventSerializer(event).data, http_status)

    @extend_schema(
        summary="Create an event",
        description="A draft owned by the caller, seen only by its staff until registration "
        "opens. `name`, `format` (slug), `date` and `capacity` are needed; every other "
        "setting is optional. Unknown fields are refused.",
        request=s.EventCreateInputSerializer,
        responses={201: s.EventSerializer, **errors(400, 403)},
    )
    def create(self, request):
        data = _input(s.EventCreateInputSerializer, request)
        event = services.create_event(organizer=request.user, **data)
        return self._event_answer(event, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change settings (managers)",
        description="Any subset of the settings, with an optional `reason` for the audit "
        "log. Format and date change only in a draft, most settings only until the top "
        "cut (`setting_locked`). Raising the capacity while registration is open moves "
        "waitlisted players in.",
        request=s.EventUpdateInputSerializer,
        responses={200: s.EventSerializer, **COMMAND_ERRORS},
    )
    def partial_update(self, request, pk=None):
        event = self.get_object()
        data = dict(_input(s.EventUpdateInputSerializer, request))
        reason = data.pop("reason", "")
        event = services.update_event(event, actor=request.user, reason=reason, **data)
        return self._event_answer(event)

    @extend_schema(
        summary="Open registration (managers)",
        description="draft → registration_open: the event becomes public.",
        request=None,
        responses={200: s.EventSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="open-registration")
    def open_registration(self, request, pk=None):
        event = services.open_registration(self.get_object(), actor=request.user)
        return self._event_answer(event)

    @extend_schema(
        summary="Start the event (managers)",
        description="registration_open → running. Needs two registered players, each with "
        "a decklist; locks every decklist and sets `swiss_rounds` when it was empty.",
        request=None,
        responses={200: s.EventSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        event = services.start_event(self.get_object(), actor=request.user)
        return self._event_answer(event)

    @extend_schema(
        summary="Finish the event (managers)",
        description="After the last Swiss round (no top cut) or the final, closed.",
        request=None,
        responses={200: s.EventSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def finish(self, request, pk=None):
        event = services.finish_event(self.get_object(), actor=request.user)
        return self._event_answer(event)

    @extend_schema(
        summary="Register for the event",
        description="Register yourself, optionally with a decklist. Without a free seat you "
        "join the waitlist, or with `join_waitlist: false` get `capacity_full`.",
        request=s.RegisterInputSerializer,
        responses={201: s.RegistrationSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def register(self, request, pk=None):
        event = self.get_object()
        data = _input(s.RegisterInputSerializer, request)
        registration = services.register_player(
            event,
            actor=request.user,
            deck_text=data.get("deck_text") or None,
            join_waitlist=data["join_waitlist"],
        )
        registration = selectors.registration_list(request.user, event).get(pk=registration.pk)
        return Response(s.RegistrationSerializer(registration).data, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Add a late entry (staff)",
        description="Add a player to the running event from the next pairing on, with a "
        "legal decklist (one submitted earlier, e.g. while waitlisted, is kept). The "
        "event's `late_entry_policy` says what the missed rounds count as.",
        request=s.LateEntryInputSerializer,
        responses={201: s.RegistrationSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="late-entry")
    def late_entry(self, request, pk=None):
        event = self.get_object()
        data = _input(s.LateEntryInputSerializer, request)
        access = policy.access_for(request.user, event)
        policy.require(policy.can_judge(access), "not_staff")
        registration = services.add_late_entry(
            event,
            actor=request.user,
            player=user_by_username(data["username"]),
            deck_text=data.get("deck_text") or None,
            reason=data["reason"],
        )
        registration = selectors.registration_list(request.user, event).get(pk=registration.pk)
        return Response(s.RegistrationSerializer(registration).data, status.HTTP_201_CREATED)

    def _new_round(self, request, service):
        """Run a service that pairs a new round of this event; answer 201 with it."""
        event = self.get_object()
        round_ = service(event, actor=request.user)
        round_ = selectors.round_list(request.user, event).get(pk=round_.pk)
        return Response(s.RoundSerializer(round_).data, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Pair the next Swiss round (managers)",
        description="The round starts unpublished; see it under `rounds/{number}/`.",
        request=None,
        responses={201: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="generate-round")
    def generate_round(self, request, pk=None):
        return self._new_round(request, services.generate_round)

    @extend_schema(
        summary="Generate the top cut (managers)",
        description="Ends the Swiss rounds (all played and closed) and pairs the first "
        "top-cut round from the standings, seeded 1 v N; the round starts unpublished.",
        request=None,
        responses={201: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="top-cut")
    def top_cut(self, request, pk=None):
        return self._new_round(request, services.generate_top_cut)

    @extend_schema(
        summary="Pair the next bracket round (managers)",
        description="The winners of the last, closed, top-cut round; after the final "
        "`bracket_complete` (finish the event instead).",
        request=None,
        responses={201: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="advance-bracket")
    def advance_bracket(self, request, pk=None):
        return self._new_round(request, services.advance_bracket)

    @extend_schema(
        summary="Standings: final placings after a top cut, with the Swiss tiebreak figures",
        description="Closed rounds only; disqualified players are left out. Rows are in "
        "`placing` order: the Swiss standings until a top-cut round is closed, then the "
        "bracket's players first (the champion, the finalist, each earlier round's losers "
        "by Swiss rank; while the cut runs, the players still in it in Swiss order), then "
        "everyone else by Swiss rank. `rank` stays the Swiss rank. 200 rows "
        "a page (`page_size`: up to 1,000, or `all`); cached per event revision, with a "
        "strong ETag (send `If-None-Match` to get a 304 while nothing changed).",
        parameters=pages.PAGE_PARAMETERS,
        responses={200: s.StandingsSerializer, **READ_ERRORS},
    )
    @action(detail=True, methods=["get"])
    def standings(self, request, pk=None):
        event, _access = selectors.viewed_event(request.user, event_id(pk))
        revision = snapshots.revision_of(event).standings

        def snapshot() -> snapshots.StandingsSnapshot:
            return snapshots.standings(event)

        def rows(start, stop):
            names = snapshot().tiebreak_names
            return [
                {
                    "placing": row.placing,
                    "top_cut_result": row.top_cut_result,
                    "rank": row.rank,
                    "registration": row.registration_id,
                    "name": row.name,
                    "match_points": row.match_points,
                    "wins": row.wins,
                    "losses": row.losses,
                    "draws": row.draws,
                    "byes": row.byes,
                    "dropped": row.dropped,
                    "missed_rounds": row.missed_rounds,
                    "tiebreakers": dict(zip(names, row.tiebreakers, strict=True)),
                }
                for row in snapshot().rows[start:stop]
            ]

        def top_cut():
            summary = snapshot().top_cut
            if summary is None:
                return None
            return {
                "size": summary.size,
                "rounds": summary.rounds,
                "closed_rounds": summary.closed,
                "complete": summary.complete,
                "champion": summary.champion,
            }

        def wrap(page):
            return {
                "count": page["count"],
                "next": page["next"],
                "previous": page["previous"],
                "profile": snapshot().profile,
                "tiebreak_names": list(snapshot().tiebreak_names),
                "rounds": snapshot().rounds,
                "top_cut": top_cut(),
                "rows": page["results"],
            }

        return pages.paginated(
            request,
            key_parts=("standings-v2", event.pk, revision),
            count=lambda: len(snapshot().rows),
            rows=rows,
            wrap=wrap,
        )


# --- everything under one event ------------------------------------------------------


class EventScopedMixin(TournamentErrorsMixin):
    """Fetches ``self.event`` through ``policy.events_visible_to`` (404 when hidden) and
    the caller's ``self.access`` once per request."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    model: type

    def load_event(self) -> Event:
        if not hasattr(self, "_event"):
            user = self.request.user
            # The event, its revision and the caller's access in one query.
            self._event, self._access = selectors.viewed_event(
                user, event_id(self.kwargs["event_pk"])
            )
        return self._event

    @property
    def event(self) -> Event:
        return self.load_event()

    @property
    def access(self) -> policy.EventAccess:
        self.load_event()
        return self._access

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return self.model.objects.none()
        return self.scoped_queryset()

    def scoped_queryset(self):
        raise NotImplementedError


@extend_schema(
    tags=["registrations"],
    parameters=[EVENT_PK],
    responses={200: s.RegistrationSerializer, **READ_ERRORS},
)
class RegistrationViewSet(EventScopedMixin, viewsets.ReadOnlyModelViewSet):
    """The event's players: registered first, then the waitlist, then the others."""

    model = Registration
    serializer_class = s.RegistrationSerializer
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        return selectors.registration_list(self.request.user, self.event, self.access)

    def _answer(self, registration):
        return Response(s.RegistrationSerializer(self.get_queryset().get(pk=registration.pk)).data)

    @extend_schema(
        summary="Submit or replace the decklist",
        description="The player, or the staff (with a reason once lists are locked).",
        request=s.DecklistInputSerializer,
        responses={200: s.RegistrationSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def decklist(self, request, event_pk=None, pk=None):
        registration = self.get_object()
        data = _input(s.DecklistInputSerializer, request)
        registration = services.submit_decklist(
            registration,
            actor=request.user,
            deck_text=data["deck_text"],
            reason=data["reason"],
        )
        return self._answer(registration)

    @extend_schema(
        summary="Drop from the event",
        description="The player or the staff; effective from the next pairing.",
        request=s.ReasonInputSerializer,
        responses={200: s.RegistrationSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def drop(self, request, event_pk=None, pk=None):
        registration = self.get_object()
        data = _input(s.ReasonInputSerializer, request)
        registration.event = self.event
        registration = services.drop_player(registration, actor=request.user, reason=data["reason"])
        return self._answer(registration)

    @extend_schema(
        summary="Re-enter after a drop",
        description="The player or the staff, while the Swiss rounds run and if the event "
        "allows re-entry. A player who never played comes back as a late entry instead "
        "(`use_late_entry`).",
        request=s.ReasonInputSerializer,
        responses={200: s.RegistrationSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def reenter(self, request, event_pk=None, pk=None):
        registration = self.get_object()
        data = _input(s.ReasonInputSerializer, request)
        registration.event = self.event
        registration = services.reenter(registration, actor=request.user, reason=data["reason"])
        return self._answer(registration)

    @extend_schema(
        summary="Issue a penalty (staff)",
        request=s.PenaltyInputSerializer,
        responses={201: s.PenaltySerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def penalty(self, request, event_pk=None, pk=None):
        registration = self.get_object()
        data = _input(s.PenaltyInputSerializer, request)
        registration.event = self.event
        match = None
        if data.get("match") is not None:
            match = event_match(request, self.event, self.access, data["match"])
        infraction = data["infraction"]
        if data["infraction_code"]:
            infraction = infractions.find(self.event, data["infraction_code"])
            if infraction is None:
                raise InvalidInput(
                    "infraction_not_found",
                    "no such infraction in the list of the event's game",
                    field="infraction_code",
                )
        penalty = services.issue_penalty(
            registration,
            actor=request.user,
            kind=data["kind"] or None,
            infraction=infraction,
            note=data["note"],
            match=match,
        )
        penalty = (
            selectors.penalty_list(request.user, self.event, self.access)
            .select_related("infraction_ref")
            .get(pk=penalty.pk)
        )
        return Response(s.PenaltySerializer(penalty).data, status.HTTP_201_CREATED)


@extend_schema(
    tags=["rounds"],
    parameters=[EVENT_PK],
    responses={200: s.RoundSerializer, **READ_ERRORS},
)
class RoundViewSet(EventScopedMixin, viewsets.ReadOnlyModelViewSet):
    """The event's rounds by number; unpublished ones only for the staff."""

    model = Round
    serializer_class = s.RoundSerializer
    lookup_field = "number"
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        return selectors.round_list(self.request.user, self.event, self.access)

    def get_object(self):
        round_ = super().get_object()
        round_.event = self.event
        return round_

    @extend_schema(
        summary="The round's pairings by table",
        description="200 tables a page (`page_size`: up to 1,000, or `all`); cached per "
        "event revision, with a strong ETag.",
        parameters=pages.PAGE_PARAMETERS,
        responses={200: s.MatchSerializer(many=True), **READ_ERRORS},
    )
    @action(detail=True, methods=["get"])
    def pairings(self, request, event_pk=None, number=None):
        event = self.event
        round_ = snapshots.round_of(event, int(number))
        if round_ is None or not policy.can_view_round(self.access, event, round_):
            raise Http404
        matches = Match.objects.filter(round=round_).order_by("table")

        def rows(start, stop):
            page = matches.select_related("player1__player", "player2__player").defer(
                *selectors.SEAT_DECK_FIELDS
            )[start:stop]
            for match in page:
                match.round = round_
            return s.MatchSerializer(page, many=True).data

        return pages.paginated(
            request,
            key_parts=("pairings", event.pk, snapshots.revision_of(event).number, round_.number),
            count=matches.count,
            rows=rows,
        )

    @extend_schema(
        summary="Publish the round (managers)",
        description="Players see their tables and may report.",
        request=None,
        responses={200: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def publish(self, request, event_pk=None, number=None):
        round_ = services.publish_round(self.get_object(), actor=request.user)
        return self._answer(round_)

    def _answer(self, round_):
        return Response(s.RoundSerializer(self.get_queryset().get(pk=round_.pk)).data)

    @extend_schema(
        summary="Start the round's clock (managers)",
        description="published → running: the round's time starts now.",
        request=None,
        responses={200: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="start-clock")
    def start_clock(self, request, event_pk=None, number=None):
        round_ = services.start_round_clock(self.get_object(), actor=request.user)
        return self._answer(round_)

    @extend_schema(
        summary="Close the round (managers)",
        description="When every match is confirmed or final; otherwise `results_missing` "
        "with the open tables in `details.tables`.",
        request=None,
        responses={200: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def close(self, request, event_pk=None, number=None):
        round_ = services.close_round(self.get_object(), actor=request.user)
        return self._answer(round_)

    @extend_schema(
        summary="Pair an unpublished round again (managers)",
        description="From the current pool (after drops or late entries, or to discard "
        "edits); each re-pairing uses another random order.",
        request=s.ReasonInputSerializer,
        responses={200: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def repair(self, request, event_pk=None, number=None):
        round_ = self.get_object()
        data = _input(s.ReasonInputSerializer, request)
        round_ = services.repair_round(round_, actor=request.user, reason=data["reason"])
        return self._answer(round_)

    @extend_schema(
        summary="Edit tables of an unpublished round (managers)",
        description="The whole resulting round is checked: registered players only, nobody "
        "twice, everyone paired, at most one bye, and no rematch unless `allow_rematch`. "
        "A reason is needed.",
        request=s.EditPairingInputSerializer,
        responses={200: s.RoundSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="edit-pairing")
    def edit_pairing(self, request, event_pk=None, number=None):
        round_ = self.get_object()
        data = _input(s.EditPairingInputSerializer, request)
        round_ = services.edit_pairing(
            round_,
            actor=request.user,
            tables=data["tables"],
            reason=data["reason"],
            allow_rematch=data["allow_rematch"],
        )
        return self._answer(round_)


class ExtendTimeInputSerializer(serializers.Serializer):
    minutes = serializers.IntegerField(min_value=1, max_value=MAX_EXTENSION_MINUTES)
    reason = serializers.CharField(max_length=500)


class MatchTimeSerializer(s.MatchSerializer):
    """A match with its extra time (``extra_minutes``: added to the round's clock)."""

    extra_minutes = serializers.IntegerField(read_only=True)
    # The same values as Match's status; a plain string here keeps that enum named
    # after Match in the schema (one choice set in two components has no good name).
    status = serializers.CharField(read_only=True)

    class Meta(s.MatchSerializer.Meta):
        fields = [*s.MatchSerializer.Meta.fields, "extra_minutes"]
        read_only_fields = fields


@extend_schema(
    tags=["matches"],
    parameters=[EVENT_PK],
    responses={200: s.MatchSerializer, **READ_ERRORS},
)
class MatchViewSet(EventScopedMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """One match of a round the caller may see, and its result commands. Every command
    takes the ``expected_version`` the caller saw: a stale one is ``stale_version``."""

    model = Match
    serializer_class = s.MatchSerializer
    lookup_value_regex = "[0-9]+"

    def scoped_queryset(self):
        return policy.matches_visible_to(self.request.user, self.event, self.access).select_related(
            "round", "player1__player", "player2__player"
        )

    def _answer(self, match):
        return Response(s.MatchSerializer(self.get_queryset().get(pk=match.pk)).data)

    @extend_schema(
        summary="Report the result (either player)",
        description="Either `games` (decided by the engine) or `record` from your own side "
        '(`{"record": "2-1", "expected_version": 1}`: you won 2-1), not both '
        "(`games_or_record`). The opponent then confirms or disputes.",
        request=s.ReportInputSerializer,
        responses={200: s.MatchSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def report(self, request, event_pk=None, pk=None):
        match = self.get_object()
        data = _input(s.ReportInputSerializer, request)
        match = services.report_result(
            match,
            actor=request.user,
            games=data.get("games"),
            record=data.get("record"),
            expected_version=data["expected_version"],
        )
        return self._answer(match)

    @extend_schema(
        summary="Confirm the opponent's report",
        request=s.VersionInputSerializer,
        responses={200: s.MatchSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def confirm(self, request, event_pk=None, pk=None):
        match = self.get_object()
        data = _input(s.VersionInputSerializer, request)
        match = services.confirm_result(
            match, actor=request.user, expected_version=data["expected_version"]
        )
        return self._answer(match)

    @extend_schema(
        summary="Dispute the opponent's report",
        request=s.DisputeInputSerializer,
        responses={200: s.MatchSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def dispute(self, request, event_pk=None, pk=None):
        match = self.get_object()
        data = _input(s.DisputeInputSerializer, request)
        match = services.dispute_result(
            match,
            actor=request.user,
            expected_version=data["expected_version"],
            reason=data["reason"],
            games=data.get("games"),
            record=data.get("record"),
        )
        return self._answer(match)

    @extend_schema(
        summary="Enter or override the result (staff)",
        description="Either `games` or `record`, with a reason; the result becomes final.",
        request=s.OverrideInputSerializer,
        responses={200: s.MatchSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def override(self, request, event_pk=None, pk=None):
        match = self.get_object()
        data = _input(s.OverrideInputSerializer, request)
        match = services.override_result(
            match,
            actor=request.user,
            expected_version=data["expected_version"],
            reason=data["reason"],
            games=data.get("games"),
            record=data.get("record"),
        )
        return self._answer(match)

    @extend_schema(
        summary="Give this table extra time (judges and managers)",
        description="Adds `minutes` (1 to 30) to the table's clock, with a `reason` "
        '(`{"minutes": 3, "reason": "Deck check"}`); extensions add up, at most 120 minutes '
        "a table, while the round is published or running. Audited; bumps the event's "
        "revision. Errors: `not_staff`, `reason_required`, `invalid_minutes`, "
        "`too_much_time`, `bye`, `round_not_open`.",
        request=ExtendTimeInputSerializer,
        responses={200: MatchTimeSerializer, **COMMAND_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="extend-time")
    def extend_time(self, request, event_pk=None, pk=None):
        match = self.get_object()
        data = _input(ExtendTimeInputSerializer, request)
        match = services_clock.extend_match_time(
            match, actor=request.user, minutes=data["minutes"], reason=data["reason"]
        )
        return Response(MatchTimeSerializer(self.get_queryset().get(pk=match.pk)).data)


def register_routes(router, prefix: str = "events") -> None:
    """The router lines for ``config/urls.py`` (kept here so tests use the same ones)."""
    nested = prefix + "/(?P<event_pk>[0-9]+)"
    router.register(prefix, EventViewSet, basename="event")
    router.register(nested + "/registrations", RegistrationViewSet, basename="event-registration")
    router.register(nested + "/rounds", RoundViewSet, basename="event-round")
    router.register(nested + "/matches", MatchViewSet, basename="event-match")
    # Imported here: views_lists builds on this module's mixins and error helpers.
    from . import views_lists

    views_lists.register_routes(router, nested)
    from . import views_deckcheck

    views_deckcheck.register_routes(router, nested)
    from . import views_why

    views_why.register_routes(router, nested)
    from . import event_file

    event_file.register_routes(router, nested)
