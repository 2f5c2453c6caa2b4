"""Reads for pages and the API, always through ``tournaments.policy``'s filters.

Every function takes the requesting user (and the event it already fetched through
:func:`tournaments.policy.events_visible_to`, so an invisible event is a 404 before these
run) and loads what a list shows in a fixed number of queries, whatever the number of
players: the query-count tests hold these to it.
"""

from __future__ import annotations

import functools

from django.core.cache import cache
from django.db import connection
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.http import Http404

from . import pagecache, policy
from .models import (
    SETTLED_MATCH_STATUSES,
    AuditEntry,
    Event,
    EventRevision,
    EventStaff,
    EventState,
    Match,
    MatchStatus,
    Penalty,
    Registration,
    RegistrationStatus,
    Round,
    RoundStage,
    RoundStatus,
)
from .policy import EventAccess
from .services.standings import EventStandings, compute_standings


def event_list(user) -> QuerySet[Event]:
    """Events the user may see, with format, organizer, the registered count (seats
    taken) and the number of players (``entrant_count``: :func:`entrants_filter`, which
    still counts those who dropped after playing)."""
    return (
        policy.events_visible_to(user)
        .select_related("format__game", "organizer")
        .annotate(
            registered_count=Count(
                "registrations", filter=Q(registrations__status=RegistrationStatus.REGISTERED)
            ),
            entrant_count=Count("registrations", filter=entrants_filter("registrations__")),
        )
    )


# Stand-ins for the user and the event in the SQL of :func:`viewed_event`, compiled once.
_USER_ID, _EVENT_ID = -7_000_001, -7_000_002


@functools.cache
def _viewed_event_sql(vendor: str, signed_in: bool) -> tuple[str, tuple]:
    """The SQL of :func:`viewed_event` (per database vendor) and where its parameters
    go. Built by the ORM once: compiling the query with its two subqueries took 4 ms of
    every request, four times what running it takes."""
    events = Event.objects.order_by().annotate(
        revision_number=F("revision__number"), revision_standings=F("revision__standings")
    )
    if signed_in:
        events = events.annotate(
            viewer_staff_role=Subquery(
                EventStaff.objects.filter(event=OuterRef("pk"), user_id=_USER_ID)
                .order_by()
                .values("role")[:1]
            ),
            viewer_registration_id=Subquery(
                Registration.objects.filter(event=OuterRef("pk"), player_id=_USER_ID)
                .order_by()
                .values("id")[:1]
            ),
        )
    sql, params = events.filter(pk=_EVENT_ID).query.sql_with_params()
    if not set(params) <= {_USER_ID, _EVENT_ID}:
        raise AssertionError(f"unexpected parameters in the event query: {params}")
    return sql, params


def viewed_event(user, pk: int) -> tuple[Event, EventAccess]:
    """The event with its revision and the user's access to it, in one short query (the
    pages every phone in the hall polls start here). 404 when the user may not see it:
    the same decision as :func:`policy.events_visible_to`, taken by
    :func:`policy.can_view_event` on the loaded access instead of in SQL."""
    signed_in = user is not None and user.is_authenticated
    sql, params = _viewed_event_sql(connection.vendor, signed_in)
    values = {_USER_ID: user.pk if signed_in else None, _EVENT_ID: pk}
    event = next(iter(Event.objects.raw(sql, [values[param] for param in params])), None)
    if event is None:
        raise Http404
    event.revision = EventRevision(
        event=event,
        number=event.revision_number or 0,
        standings=event.revision_standings or 0,
    )
    access = policy.access_of(
        user,
        event,
        staff_role=getattr(event, "viewer_staff_role", None),
        registration_id=getattr(event, "viewer_registration_id", None),
    )
    if not policy.can_view_event(access, event):
        raise Http404
    return event, access


def registration_list(
    user, event: Event, access: EventAccess | None = None
) -> QuerySet[Registration]:
    """The event's players (registered first, then waitlist order), with their user.
    Decklists are in the rows but only :func:`decklist_list` decides who may see them."""
    status_order = Case(
        *(
            When(status=status, then=Value(position))
            for position, status in enumerate(RegistrationStatus.values)
        ),
        output_field=IntegerField(),
    )
    return (
        policy.registrations_visible_to(user, event, access)
        .select_related("player")
        .annotate(status_order=status_order)
        .order_by("status_order", "registered_at", "id")
    )


def decklist_list(user, event: Event, access: EventAccess | None = None) -> QuerySet[Registration]:
    """Registrations whose decklist this user may see (own; all for staff or once public)."""
    return (
        policy.decklists_visible_to(user, event, access)
        .exclude(deck_submitted_at=None)
        .select_related("player", "deck")
        .order_by("player__username", "id")
    )


def round_list(user, event: Event, access: EventAccess | None = None) -> QuerySet[Round]:
    """Rounds the user may see, each with its number of matches still open."""
    return (
        policy.rounds_visible_to(user, event, access)
        .annotate(
            match_count=Count("matches"),
            open_match_count=Count(
                "matches", filter=~Q(matches__status__in=SETTLED_MATCH_STATUSES)
            ),
        )
        .order_by("number")
    )


def pairings(user, round_: Round, access: EventAccess | None = None) -> QuerySet[Match]:
    """A round's matches by table, with both players (one query). Empty for a round the
    user may not see (an unpublished round for non-staff)."""
    event = round_.event
    visible = policy.rounds_visible_to(user, event, access).filter(pk=round_.pk)
    return (
        Match.objects.filter(round__in=visible)
        .select_related("player1__player", "player2__player")
        .order_by("table")
    )


def name_of(username: str, first_name: str, last_name: str) -> str:
    """A player's name as the pages show it, from the user's columns (what
    ``get_full_name() or get_username()`` gives, for rows read as values)."""
    return f"{first_name} {last_name}".strip() or username


def display_name(registration: Registration | None) -> str | None:
    if registration is None:
        return None
    user = registration.player
    return user.get_full_name() or user.get_username()


def standings(user, event: Event, access: EventAccess | None = None) -> EventStandings | None:
    """The Swiss standings (closed rounds only, hence public with the event). Two
    queries. None for an event the user may not see."""
    access = access or policy.access_for(user, event)
    if not policy.can_view_event(access, event):
        return None
    return compute_standings(event)


def bracket(user, event: Event, access: EventAccess | None = None) -> list[Round]:
    """The top-cut rounds the user may see, each with ``bracket_matches`` (by position,
    players loaded): two queries."""
    matches = Match.objects.select_related("player1__player", "player2__player").order_by(
        "bracket_position"
    )
    return list(
        policy.rounds_visible_to(user, event, access)
        .filter(stage=RoundStage.TOP_CUT)
        .order_by("number")
        .prefetch_related(Prefetch("matches", queryset=matches, to_attr="bracket_matches"))
    )


DECK_FIELDS = ("deck_text", "deck_report")
# A match's players without their decklists and reports (most of their rows' bytes, and
# a JSON document to decode each): for lists that show names.
SEAT_DECK_FIELDS = tuple(
    f"{seat}__{field}" for seat in ("player1", "player2") for field in DECK_FIELDS
)


def current_match(registration: Registration | int) -> Match | None:
    """The player's match in the latest published round (for "my match" pages); the
    registration or its id."""
    return (
        Match.objects.filter(participants__registration=registration)
        .exclude(round__status=RoundStatus.DRAFT)
        .select_related("round", "player1__player", "player2__player")
        # the players' decklists and reports are most of their rows' bytes
        .defer(*SEAT_DECK_FIELDS)
        .order_by("-round__number")
        .first()
    )


def outstanding_matches(user, event: Event, access: EventAccess | None = None):
    """Staff dashboard: matches of open rounds without a settled result, disputes first."""
    access = access or policy.access_for(user, event)
    if not access.is_staff:
        return Match.objects.none()
    return (
        Match.objects.filter(
            round__event=event, round__status__in=(RoundStatus.PUBLISHED, RoundStatus.RUNNING)
        )
        .exclude(status__in=SETTLED_MATCH_STATUSES)
        .select_related("round", "player1__player", "player2__player")
        .annotate(
            dispute_first=Case(
                When(status=MatchStatus.DISPUTED, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("dispute_first", "round__number", "table")
    )


def penalty_list(user, event: Event, access: EventAccess | None = None) -> QuerySet[Penalty]:
    return (
        policy.penalties_visible_to(user, event, access)
        .select_related("registration__player", "judge", "round", "match", "infraction_ref")
        .order_by("-created_at", "-id")
    )


def staff_list(user, event: Event, access: EventAccess | None = None) -> QuerySet[EventStaff]:
    """The event's staff rows with their users, co-organizers first (the staff page and
    the staff endpoint)."""
    rows = policy.staff_visible_to(user, event, access)
    return rows.select_related("user").order_by("role", "id")


def audit_log(user, event: Event, access: EventAccess | None = None) -> QuerySet[AuditEntry]:
    return policy.audit_entries_visible_to(user, event, access).select_related("actor")


# --- the player's hub ----------------------------------------------------------------------

LEFT_STATUSES = (RegistrationStatus.DROPPED, RegistrationStatus.DISQUALIFIED)


def entrants_filter(prefix: str = "") -> Q:
    """Who counts as a player of the event (``prefix``: the path to the registration,
    e.g. ``"registrations__"`` from the event): everyone seated now, and everyone who left
    after being paired (a drop or a disqualification in round 2 still played rounds 1 and
    2). Not the waitlist, not a withdrawal before round 1 (MTR 2.10: not in the finish
    order)."""
    return Q(**{f"{prefix}status": RegistrationStatus.REGISTERED}) | Q(
        **{f"{prefix}status__in": LEFT_STATUSES, f"{prefix}dropped_after_round__gte": 1}
    )


# Events a player may still come to: registration open, or under way.
CURRENT_EVENT_STATES = (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT)
LIVE_EVENT_STATES = (EventState.RUNNING, EventState.TOP_CUT)
# How many live and upcoming events the home page lists (the events page lists them all).
HOME_EVENTS = 12


def event_with_counts(event: Event) -> Event:
    """The event again with its format and organizer, and its numbers of players
    (``entrant_count``: :func:`entrants_filter`), of those who dropped after playing
    (``dropped_count``) and of the waitlist (``waitlisted_count``): one query."""
    return (
        Event.objects.select_related("format", "organizer")
        .annotate(
            entrant_count=Count("registrations", filter=entrants_filter("registrations__")),
            dropped_count=Count(
                "registrations",
                filter=Q(
                    registrations__status=RegistrationStatus.DROPPED,
                    registrations__dropped_after_round__gte=1,
                ),
            ),
            waitlisted_count=Count(
                "registrations",
                filter=Q(registrations__status=RegistrationStatus.WAITLISTED),
            ),
        )
        .get(pk=event.pk)
    )


def home_events(user) -> list[Event]:
    """Live events (Swiss rounds or top cut) then upcoming ones (registration open), the
    sooner first, with format, game and the number of players (``entrant_count``): one
    query for the events; their counts come from the cache, keyed by each event's
    revision (every registration, drop or disqualification moves it), and the missing
    ones from one more query."""
    live_first = Case(
        When(state__in=LIVE_EVENT_STATES, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    events = list(
        policy.events_visible_to(user)
        .filter(state__in=CURRENT_EVENT_STATES)
        .select_related("format__game", "revision")
        .annotate(live_first=live_first)
        .order_by("live_first", "date", "id")[:HOME_EVENTS]
    )
    keys = {
        event.pk: pagecache.key("entrants", event.pk, revision_of(event).number) for event in events
    }
    counts = {pk: count for pk, key in keys.items() if (count := cache.get(key)) is not None}
    missing = [pk for pk in keys if pk not in counts]
    if missing:
        found = dict(
            Registration.objects.filter(entrants_filter(), event_id__in=missing)
            .values_list("event_id")
            .annotate(count=Count("id"))
            .values_list("event_id", "count")
        )
        for pk in missing:
            counts[pk] = found.get(pk, 0)
            cache.set(keys[pk], counts[pk], pagecache.TIMEOUT)
    for event in events:
        event.entrant_count = counts[event.pk]
    return events


def revision_of(event: Event) -> EventRevision:
    """The event's revision as loaded with it (``select_related("revision")``)."""
    try:
        return event.revision
    except EventRevision.DoesNotExist:  # an event saved without signals (raw loaddata)
        return EventRevision(event=event)


def my_current_registrations(user) -> list[Registration]:
    """The user's registrations (registered or waitlisted) in events under way, then in
    those still to come, each with its event (and format) and ``current_match``: the match of the
    latest published round, players loaded, or None. Two queries, whatever the number of
    events."""
    if user is None or not user.is_authenticated:
        return []
    latest = (
        Match.objects.filter(participants__registration=OuterRef("pk"))
        .exclude(round__status=RoundStatus.DRAFT)
        .order_by("-round__number")
        .values("pk")[:1]
    )
    registrations = list(
        Registration.objects.filter(
            player=user,
            status__in=(RegistrationStatus.REGISTERED, RegistrationStatus.WAITLISTED),
            event__state__in=CURRENT_EVENT_STATES,
        )
        .select_related("event__format", "event__revision")
        .defer(*DECK_FIELDS)
        .annotate(
            current_match_id=Subquery(latest),
            live_first=Case(
                When(event__state__in=LIVE_EVENT_STATES, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            ),
        )
        .order_by("live_first", "event__date", "event_id")
    )
    wanted = [r.current_match_id for r in registrations if r.current_match_id is not None]
    matches = {}
    if wanted:
        matches = {
            match.pk: match
            for match in Match.objects.filter(pk__in=wanted)
            .select_related("round", "player1__player", "player2__player")
            .defer(*SEAT_DECK_FIELDS)
        }
    for registration in registrations:
        registration.current_match = matches.get(registration.current_match_id)
    return registrations


def my_staff_events(user) -> list[Event]:
    """Events the user runs (organizer or on the staff) that are not finished, drafts
    included: one query."""
    if user is None or not user.is_authenticated:
        return []
    on_staff = EventStaff.objects.filter(event=OuterRef("pk"), user=user)
    return list(
        Event.objects.filter(Q(organizer=user) | Exists(on_staff))
        .exclude(state=EventState.FINISHED)
        .select_related("format")
        .order_by("date", "id")
    )


def my_registration_status(registration_id: int) -> Registration | None:
    """The viewer's own registration for their status panel (the decklist text left out,
    its report kept: the panel says whether the list is legal): one query."""
    return Registration.objects.filter(pk=registration_id).defer("deck_text").first()


def is_active_registration(registration_id: int) -> bool:
    """The registration holds a seat or a waitlist place (not dropped, withdrawn or
    disqualified): one query."""
    return Registration.objects.filter(
        pk=registration_id,
        status__in=(RegistrationStatus.REGISTERED, RegistrationStatus.WAITLISTED),
    ).exists()
