"""Who may do what in an event: the one place that decides.

Roles in an event: the organizer (owns it), co-organizers and judges (``EventStaff`` rows),
players (a ``Registration``), anyone. A superuser acts as an organizer of every event.

* :func:`access_of` turns the rows into an :class:`EventAccess` (pure); :func:`access_for`
  loads those rows (at most two queries).
* The ``can_*`` functions are pure decisions over an ``EventAccess`` and the objects.
* :func:`require` raises :class:`~tournaments.services.errors.NotAllowed` (a
  ``PermissionDenied``: HTTP 403) when a decision says no.
* The ``*_visible_to`` functions are the queryset filters every list starts from. Objects
  outside them do not exist for that user: views fetch through them and answer 404
  (``get_object_or_404``), so another event's private data is never confirmed to exist.
  A missing permission on a visible object is a 403.

Deny by default: every decision starts from "no" and lists who gets a "yes".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from .models import (
    AuditEntry,
    Event,
    EventStaff,
    EventState,
    Match,
    Penalty,
    Registration,
    Round,
    RoundStatus,
    StaffRole,
)
from .services.errors import NotAllowed


class Role(StrEnum):
    SITE_ADMIN = "site_admin"
    ORGANIZER = "organizer"
    CO_ORGANIZER = "co_organizer"
    JUDGE = "judge"
    PLAYER = "player"  # has a registration in the event, whatever its status


MANAGERS = frozenset({Role.SITE_ADMIN, Role.ORGANIZER, Role.CO_ORGANIZER})
STAFF = MANAGERS | {Role.JUDGE}


@dataclass(frozen=True, slots=True)
class EventAccess:
    """What one user is in one event."""

    user_id: int | None
    roles: frozenset[Role] = frozenset()
    registration_id: int | None = None

    @property
    def is_owner(self) -> bool:
        return bool(self.roles & {Role.SITE_ADMIN, Role.ORGANIZER})

    @property
    def is_manager(self) -> bool:
        return bool(self.roles & MANAGERS)

    @property
    def is_staff(self) -> bool:
        return bool(self.roles & STAFF)


def access_of(
    user, event: Event, *, staff_role: str | None = None, registration_id: int | None = None
) -> EventAccess:
    """The user's roles in ``event`` from already loaded rows (pure)."""
    if user is None or not user.is_authenticated:
        return EventAccess(user_id=None)
    roles = set()
    if user.is_superuser:
        roles.add(Role.SITE_ADMIN)
    if event.organizer_id == user.pk:
        roles.add(Role.ORGANIZER)
    if staff_role == StaffRole.CO_ORGANIZER:
        roles.add(Role.CO_ORGANIZER)
    elif staff_role == StaffRole.JUDGE:
        roles.add(Role.JUDGE)
    if registration_id is not None:
        roles.add(Role.PLAYER)
    return EventAccess(user_id=user.pk, roles=frozenset(roles), registration_id=registration_id)


def access_for(user, event: Event) -> EventAccess:
    """Load the user's staff row and registration in ``event`` (at most two queries)."""
    if user is None or not user.is_authenticated:
        return EventAccess(user_id=None)
    staff_role = (
        EventStaff.objects.filter(event=event, user=user).values_list("role", flat=True).first()
    )
    registration_id = (
        Registration.objects.filter(event=event, player=user).values_list("id", flat=True).first()
    )
    return access_of(user, event, staff_role=staff_role, registration_id=registration_id)


def require(allowed: bool, code: str, message: str = "") -> None:
    if not allowed:
        raise NotAllowed(code, message)


# --- decisions (pure) ----------------------------------------------------------------


def can_create_event(user) -> bool:
    """Any signed-in user may organise an event (and becomes its organizer)."""
    return user is not None and user.is_authenticated and user.is_active


# The events whose staff may print the venue poster: those under way at a venue, from
# the opening of registration (players sign up on their phones there) to the top cut.
# A draft is seen by nobody but its staff and anyone may make one, so it vouches for
# nobody; a finished event needs no poster.
VENUE_POSTER_STATES = (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT)


def runs_events(user) -> bool:
    """A superuser, or the organizer or a staff member of an event under way (registration
    open, Swiss rounds or top cut), in one query: who may print the venue poster (it shows
    the laptop's network addresses)."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    live = Event.objects.filter(state__in=VENUE_POSTER_STATES)
    return (
        get_user_model()
        .objects.filter(pk=user.pk)
        .filter(
            Exists(live.filter(organizer=OuterRef("pk")))
            | Exists(live.filter(staff__user=OuterRef("pk")))
        )
        .exists()
    )


def can_view_event(access: EventAccess, event: Event) -> bool:
    """A draft is seen by its staff only; from registration on, by anyone."""
    return event.state != EventState.DRAFT or access.is_staff


def can_edit_event(access: EventAccess) -> bool:
    """Settings, registration, start and finish of the event."""
    return access.is_manager


def can_manage_staff(access: EventAccess) -> bool:
    """Adding and removing co-organizers and judges: the organizer only."""
    return access.is_owner


def can_run_rounds(access: EventAccess) -> bool:
    """Generate, edit, re-pair, publish, start, close rounds; top cut."""
    return access.is_manager


def can_view_unpublished_rounds(access: EventAccess) -> bool:
    return access.is_staff


def can_view_round(access: EventAccess, event: Event, round_: Round) -> bool:
    """The decision :func:`rounds_visible_to` takes in SQL, for a loaded round."""
    return can_view_event(access, event) and (
        round_.status != RoundStatus.DRAFT or can_view_unpublished_rounds(access)
    )


def can_judge(access: EventAccess) -> bool:
    """Enter or override results, issue penalties, change locked decklists, drop or
    re-enter players, add late entries."""
    return access.is_staff


def can_register(user) -> bool:
    return user is not None and user.is_authenticated


def can_act_for(access: EventAccess, registration: Registration) -> bool:
    """The player themself (drop, submit a decklist) or the event's staff."""
    return access.is_staff or (
        access.user_id is not None and access.registration_id == registration.pk
    )


def is_participant(access: EventAccess, match: Match) -> bool:
    return access.registration_id is not None and access.registration_id in (
        match.player1_id,
        match.player2_id,
    )


def can_report(access: EventAccess, match: Match) -> bool:
    """Either player of the match reports its games."""
    return is_participant(access, match)


def can_answer_report(access: EventAccess, match: Match) -> bool:
    """Confirming or disputing: the player who did not report."""
    return is_participant(access, match) and access.registration_id != match.reported_by_id


def decklists_public(event: Event, now: dt.datetime | None = None) -> bool:
    now = now or timezone.now()
    return event.decklists_public_from is not None and event.decklists_public_from <= now


def can_view_decklist(
    access: EventAccess, event: Event, registration: Registration, now: dt.datetime | None = None
) -> bool:
    return (
        access.is_staff
        or (access.user_id is not None and registration.player_id == access.user_id)
        or decklists_public(event, now)
    )


def can_view_audit(access: EventAccess) -> bool:
    return access.is_staff


def can_view_penalty(access: EventAccess, penalty: Penalty) -> bool:
    return access.is_staff or (
        access.registration_id is not None and penalty.registration_id == access.registration_id
    )


# --- queryset filters: every list starts here ----------------------------------------


def events_visible_to(user) -> QuerySet[Event]:
    events = Event.objects.all()
    if user is None or not user.is_authenticated:
        return events.exclude(state=EventState.DRAFT)
    if user.is_superuser:
        return events
    on_staff = EventStaff.objects.filter(event=OuterRef("pk"), user=user)
    return events.filter(~Q(state=EventState.DRAFT) | Q(organizer=user) | Exists(on_staff))


def rounds_visible_to(user, event: Event, access: EventAccess | None = None) -> QuerySet[Round]:
    access = access or access_for(user, event)
    rounds = Round.objects.filter(event=event)
    if not can_view_event(access, event):
        return rounds.none()
    if can_view_unpublished_rounds(access):
        return rounds
    return rounds.exclude(status=RoundStatus.DRAFT)


def matches_visible_to(user, event: Event, access: EventAccess | None = None) -> QuerySet[Match]:
    access = access or access_for(user, event)
    return Match.objects.filter(round__in=rounds_visible_to(user, event, access))


def registrations_visible_to(
    user, event: Event, access: EventAccess | None = None
) -> QuerySet[Registration]:
    """Who plays (names and status are public once the event is); decklists are not:
    use :func:`decklists_visible_to` for those."""
    access = access or access_for(user, event)
    registrations = Registration.objects.filter(event=event)
    if not can_view_event(access, event):
        return registrations.none()
    return registrations


def decklists_visible_to(
    user, event: Event, access: EventAccess | None = None, now: dt.datetime | None = None
) -> QuerySet[Registration]:
    access = access or access_for(user, event)
    registrations = registrations_visible_to(user, event, access)
    if access.is_staff or decklists_public(event, now):
        return registrations
    if access.user_id is None:
        return registrations.none()
    return registrations.filter(player_id=access.user_id)


def penalties_visible_to(
    user, event: Event, access: EventAccess | None = None
) -> QuerySet[Penalty]:
    access = access or access_for(user, event)
    penalties = Penalty.objects.filter(event=event)
    if access.is_staff:
        return penalties
    if access.registration_id is None:
        return penalties.none()
    return penalties.filter(registration_id=access.registration_id)


def staff_visible_to(user, event: Event, access: EventAccess | None = None) -> QuerySet[EventStaff]:
    """The event's co-organizers and judges: listed to its staff only."""
    access = access or access_for(user, event)
    rows = EventStaff.objects.filter(event=event)
    return rows if access.is_staff else rows.none()


def audit_entries_visible_to(
    user, event: Event, access: EventAccess | None = None
) -> QuerySet[AuditEntry]:
    access = access or access_for(user, event)
    entries = AuditEntry.objects.filter(event=event)
    return entries if can_view_audit(access) else entries.none()
