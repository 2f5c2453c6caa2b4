"""An event's life: create, edit settings, staff, open registration, start, finish.

States: draft → registration_open → running (Swiss) → top_cut → finished; the top cut is
entered by :func:`tournaments.services.topcut.generate_top_cut`.
"""

from __future__ import annotations

import datetime as dt
import math
import secrets

from django.db import IntegrityError, transaction
from django.utils import timezone

from decks.models import Format

from .. import policy
from ..models import (
    TOP_CUT_SIZES,
    Event,
    EventStaff,
    EventState,
    LateEntryPolicy,
    Registration,
    RegistrationStatus,
    Round,
    RoundStage,
    RoundStatus,
    StaffRole,
    TiebreakProfile,
    TimeoutPolicy,
)
from . import audit
from ._common import Actor, User, last_round_played, lock, require_state, save
from .errors import Conflict, InvalidInput, InvalidState


def suggested_swiss_rounds(player_count: int) -> int:
    """The Swiss rounds to suggest for ``player_count`` players: the fewest after which at
    most one player can have won every round, ⌈log₂ n⌉ (the Challonge, start.gg and RTO
    convention), but at least one round for two or more players. Pure function."""
    if player_count < 2:
        return 0
    return max(1, math.ceil(math.log2(player_count)))


# Settings an organizer gives at creation and may edit later, and the states in which
# each may still change. Format and date decide every decklist check: draft only.
SETTINGS = (
    "name",
    "format",
    "date",
    "capacity",
    "registration_deadline",
    "decklist_deadline",
    "swiss_rounds",
    "round_minutes",
    "tiebreak_profile",
    "top_cut_size",
    "swiss_timeout_policy",
    "top_cut_timeout_policy",
    "decklists_public_from",
    "allow_reentry",
    "late_entry_policy",
)
_EARLY = (EventState.DRAFT, EventState.REGISTRATION_OPEN)
_UNTIL_CUT = (*_EARLY, EventState.RUNNING)
_UNTIL_FINISHED = (*_UNTIL_CUT, EventState.TOP_CUT)
EDITABLE_IN = {
    "name": (*_UNTIL_FINISHED, EventState.FINISHED),
    "format": (EventState.DRAFT,),
    "date": (EventState.DRAFT,),
    "capacity": _UNTIL_CUT,
    "registration_deadline": _EARLY,
    "decklist_deadline": _EARLY,
    "swiss_rounds": _UNTIL_CUT,
    "round_minutes": _UNTIL_FINISHED,
    "tiebreak_profile": _EARLY,
    "top_cut_size": _UNTIL_CUT,
    "swiss_timeout_policy": _UNTIL_CUT,
    "top_cut_timeout_policy": _UNTIL_FINISHED,
    "decklists_public_from": (*_UNTIL_FINISHED, EventState.FINISHED),
    "allow_reentry": _UNTIL_CUT,
    "late_entry_policy": _UNTIL_CUT,
}


# Upper bounds: far above any real event, and within the columns' ranges on every database.
MAX_CAPACITY = 100_000
MAX_ROUND_MINUTES = 24 * 60
MAX_SWISS_ROUNDS = 30
# Times an event may be given (deadlines, decklists made public): from 2000 to 8999 UTC.
# Before 2000 some time zones' offsets had seconds (Asia/Tokyo's was +09:18:59 until 1888),
# which RFC 3339 and the API cannot write; near year 9999 a zone's offset would overflow.
EARLIEST_TIME = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
LATEST_TIME = dt.datetime(9000, 1, 1, tzinfo=dt.UTC)


def _invalid(field: str, message: str) -> InvalidInput:
    return InvalidInput("invalid_setting", f"{field}: {message}", field=field)


def _clean_settings(values: dict) -> dict:
    """Check and normalise settings (any subset of SETTINGS)."""
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        raise InvalidInput("unknown_setting", f"unknown settings: {unknown}", fields=unknown)
    cleaned = dict(values)
    if "name" in cleaned:
        cleaned["name"] = (cleaned["name"] or "").strip()
        if not cleaned["name"] or len(cleaned["name"]) > 200:
            raise _invalid("name", "give a name of 1 to 200 characters")
    if "format" in cleaned and not isinstance(cleaned["format"], Format):
        raise _invalid("format", "expected a Format")
    if "date" in cleaned and (
        not isinstance(cleaned["date"], dt.date) or isinstance(cleaned["date"], dt.datetime)
    ):
        raise _invalid("date", "expected a date")
    for name in ("registration_deadline", "decklist_deadline", "decklists_public_from"):
        value = cleaned.get(name)
        if value is not None and not (isinstance(value, dt.datetime) and timezone.is_aware(value)):
            raise _invalid(name, "expected a time zone-aware datetime or None")
        if value is not None and not EARLIEST_TIME <= value < LATEST_TIME:
            raise _invalid(name, "give a time from 2000 to 8999")
    for name, minimum, maximum in (
        ("capacity", 2, MAX_CAPACITY),
        ("round_minutes", 1, MAX_ROUND_MINUTES),
    ):
        if name in cleaned:
            value = cleaned[name]
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not minimum <= value <= maximum
            ):
                raise _invalid(name, f"expected a whole number from {minimum} to {maximum}")
    if "swiss_rounds" in cleaned:
        value = cleaned["swiss_rounds"]
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not 1 <= value <= MAX_SWISS_ROUNDS
        ):
            raise _invalid(
                "swiss_rounds", f"expected a whole number from 1 to {MAX_SWISS_ROUNDS} or None"
            )
    if "top_cut_size" in cleaned and cleaned["top_cut_size"] not in TOP_CUT_SIZES:
        raise _invalid("top_cut_size", f"expected one of {TOP_CUT_SIZES}")
    choices = {
        "tiebreak_profile": TiebreakProfile,
        "swiss_timeout_policy": TimeoutPolicy,
        "top_cut_timeout_policy": TimeoutPolicy,
        "late_entry_policy": LateEntryPolicy,
    }
    for name, enum in choices.items():
        if name in cleaned and cleaned[name] not in enum.values:
            raise _invalid(name, f"expected one of {enum.values}")
    if "allow_reentry" in cleaned and not isinstance(cleaned["allow_reentry"], bool):
        raise _invalid("allow_reentry", "expected True or False")
    return cleaned


def _settings_snapshot(event: Event, fields=SETTINGS) -> dict:
    return audit.snapshot(event, fields)


def create_event(
    *,
    organizer: User,
    format: Format,
    name: str,
    date: dt.date,
    capacity: int,
    pairing_seed: str | None = None,
    **settings,
) -> Event:
    """Create an event in the draft state, owned by ``organizer``.

    ``settings`` may hold any of :data:`SETTINGS`. ``pairing_seed`` fixes the engine's
    random order (pairings, ties), for tests and demos; by default it is random.
    Side effects: one Event row and the audit entry ``event.created``. Raises NotAllowed
    (``login_required``) or InvalidInput.
    """
    policy.require(policy.can_create_event(organizer), "login_required")
    values = _clean_settings(
        {"format": format, "name": name, "date": date, "capacity": capacity, **settings}
    )
    if values.get("top_cut_size", 0) > values["capacity"]:
        raise _invalid("top_cut_size", "the top cut is larger than the capacity")
    with transaction.atomic():
        event = Event.objects.create(
            organizer=organizer, pairing_seed=pairing_seed or secrets.token_hex(8), **values
        )
        audit.record(
            event, actor=organizer, action="event.created", after=_settings_snapshot(event)
        )
    return event


def update_event(
    event: Event,
    *,
    actor: Actor,
    reason: str = "",
    expected_updated_at: dt.datetime | None = None,
    **changes,
) -> Event:
    """Change settings of ``event`` (manager only). Each setting may change only in the
    states listed in :data:`EDITABLE_IN`. Raising the capacity while registration is open
    moves waitlisted players in, in waitlist order.

    Side effects: the changed columns, promoted registrations, one audit entry
    ``event.updated`` (none when nothing changed). Raises NotAllowed, InvalidInput
    (``unknown_setting``, ``invalid_setting``, ``capacity_below_registered``,
    ``swiss_rounds_below_played``) or InvalidState (``setting_locked``).
    """
    access = policy.access_for(actor, event)
    policy.require(policy.can_edit_event(access), "not_manager")
    values = _clean_settings(changes)
    with transaction.atomic():
        event = lock(Event, event.pk)
        if expected_updated_at is not None and event.updated_at != expected_updated_at:
            raise Conflict(
                "stale_version",
                "the event was changed after these settings were loaded",
                updated_at=event.updated_at.isoformat(),
            )
        for name in values:
            if event.state not in EDITABLE_IN[name]:
                raise InvalidState(
                    "setting_locked",
                    f"{name} cannot change in state {event.state!r}",
                    field=name,
                    current=event.state,
                )
        changed = {name: value for name, value in values.items() if getattr(event, name) != value}
        if not changed:
            return event
        if changed.get("top_cut_size", event.top_cut_size) > changed.get(
            "capacity", event.capacity
        ):
            raise _invalid("top_cut_size", "the top cut is larger than the capacity")
        registered = Registration.objects.filter(
            event=event, status=RegistrationStatus.REGISTERED
        ).count()
        if "capacity" in changed and changed["capacity"] < registered:
            raise InvalidInput(
                "capacity_below_registered",
                f"{registered} players are registered; the capacity cannot go below that",
                registered=registered,
            )
        if "swiss_rounds" in changed and changed["swiss_rounds"] is not None:
            played = Round.objects.filter(event=event, stage=RoundStage.SWISS).count()
            if changed["swiss_rounds"] < played:
                raise InvalidInput(
                    "swiss_rounds_below_played",
                    f"{played} Swiss rounds exist already",
                    played=played,
                )
        before = _settings_snapshot(event, changed)
        for name, value in changed.items():
            setattr(event, name, value)
        save(event, *changed)
        after = _settings_snapshot(event, changed)
        if "capacity" in changed and event.state == EventState.REGISTRATION_OPEN:
            promoted = promote_waitlisted(event, seats=event.capacity - registered)
            if promoted:
                after["promoted_from_waitlist"] = promoted
        audit.record(
            event, actor=actor, action="event.updated", reason=reason, before=before, after=after
        )
    return event


def promote_waitlisted(event: Event, *, seats: int) -> list[int]:
    """Move up to ``seats`` waitlisted registrations in, oldest first; return their ids.
    Internal: call with the event row locked, inside the caller's audited change."""
    if seats <= 0:
        return []
    waiting = list(
        Registration.objects.filter(event=event, status=RegistrationStatus.WAITLISTED)
        .order_by("registered_at", "id")
        .values_list("id", flat=True)[:seats]
    )
    if waiting:
        Registration.objects.filter(pk__in=waiting).update(status=RegistrationStatus.REGISTERED)
    return waiting


def leave_event(event: Event, registration: Registration, status: str) -> dict:
    """Take ``registration`` out of the event as dropped or disqualified: it is paired no
    more from the next round (``dropped_after_round`` = the last round it is paired in),
    and a seat it frees while registration is open goes to the first waitlisted player.
    Internal: call with the event and registration rows locked, inside the caller's
    audited change; returns the values for the audit entry's "after"."""
    had_seat = registration.status == RegistrationStatus.REGISTERED
    registration.status = status
    if registration.dropped_after_round is None:
        registration.dropped_after_round = last_round_played(registration)
    save(registration, "status", "dropped_after_round")
    after = {"status": status, "dropped_after_round": registration.dropped_after_round}
    if had_seat and event.state == EventState.REGISTRATION_OPEN:
        promoted = promote_waitlisted(event, seats=1)
        if promoted:
            after["promoted_from_waitlist"] = promoted
    return after


def add_staff(event: Event, *, actor: Actor, user: User, role: str) -> EventStaff:
    """Make ``user`` a co-organizer or judge of ``event`` (the organizer only).

    Side effects: one EventStaff row, audit entry ``staff.added``. Raises NotAllowed,
    InvalidInput (``invalid_role``, ``user_is_organizer``), InvalidState
    (``user_is_player``: staff do not play in their own event) or Conflict
    (``already_staff``).
    """
    access = policy.access_for(actor, event)
    policy.require(policy.can_manage_staff(access), "not_organizer")
    if role not in StaffRole.values:
        raise InvalidInput("invalid_role", f"expected one of {StaffRole.values}")
    if user.pk == event.organizer_id:
        raise InvalidInput("user_is_organizer", "the organizer is already in charge")
    try:
        with transaction.atomic():
            event = lock(Event, event.pk)
            if Registration.objects.filter(event=event, player=user).exclude(
                status=RegistrationStatus.DROPPED, dropped_after_round=0
            ):
                raise InvalidState("user_is_player", "a player of the event cannot be on its staff")
            if EventStaff.objects.filter(event=event, user=user).exists():
                raise Conflict("already_staff", f"{user} is already on the staff")
            staff = EventStaff.objects.create(event=event, user=user, role=role)
            audit.record(
                event,
                actor=actor,
                action="staff.added",
                obj=staff,
                after={"user": user.pk, "role": role},
            )
    except IntegrityError as exc:
        raise Conflict("already_staff", f"{user} is already on the staff") from exc
    return staff


def remove_staff(staff: EventStaff, *, actor: Actor) -> None:
    """Remove a co-organizer or judge (the organizer only). Audit entry ``staff.removed``."""
    event = staff.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_manage_staff(access), "not_organizer")
    with transaction.atomic():
        lock(Event, event.pk)
        staff = lock(EventStaff, staff.pk)
        before = {"user": staff.user_id, "role": staff.role}
        audit.record(event, actor=actor, action="staff.removed", obj=staff, before=before)
        staff.delete()


def open_registration(event: Event, *, actor: Actor) -> Event:
    """draft → registration_open (manager). Audit entry ``event.registration_opened``."""
    return _transition(
        event,
        actor=actor,
        allowed=(EventState.DRAFT,),
        to=EventState.REGISTRATION_OPEN,
        action="event.registration_opened",
    )


def _transition(event, *, actor: Actor, allowed, to, action, prepare=None, extra=None) -> Event:
    access = policy.access_for(actor, event)
    policy.require(policy.can_edit_event(access), "not_manager")
    with transaction.atomic():
        event = lock(Event, event.pk)
        require_state(event.state, allowed, "wrong_event_state", "the event")
        details = prepare(event) if prepare else {}
        before = {"state": event.state}
        event.state = to
        fields = ["state", *(extra(event) if extra else ())]
        save(event, *fields)
        audit.record(
            event,
            actor=actor,
            action=action,
            before=before,
            after={"state": event.state, **details},
        )
    return event


def start_event(event: Event, *, actor: Actor) -> Event:
    """registration_open → running (manager).

    Needs at least two registered players, each with a decklist. Locks every decklist;
    sets ``swiss_rounds`` from :func:`suggested_swiss_rounds` when it was left empty.
    Waitlisted players stay on the waitlist (staff can add them as late entries).
    Side effects: the event, the registrations' ``locked`` flags, audit entry
    ``event.started``. Raises NotAllowed or InvalidState (``wrong_event_state``,
    ``not_enough_players``, ``decklists_missing``).
    """

    def prepare(event: Event) -> dict:
        active = Registration.objects.filter(event=event, status=RegistrationStatus.REGISTERED)
        count = active.count()
        if count < 2:
            raise InvalidState("not_enough_players", f"{count} registered; at least 2 needed")
        missing = list(
            active.filter(deck_submitted_at__isnull=True)
            .order_by("id")
            .values_list("id", flat=True)
        )
        if missing:
            raise InvalidState(
                "decklists_missing",
                f"{len(missing)} registered players have no decklist",
                registrations=missing,
            )
        locked = Registration.objects.filter(
            event=event,
            status__in=(RegistrationStatus.REGISTERED, RegistrationStatus.WAITLISTED),
            locked=False,
        ).update(locked=True)
        details = {"players": count, "decklists_locked": locked}
        if event.swiss_rounds is None:
            event.swiss_rounds = suggested_swiss_rounds(count)
            details["swiss_rounds"] = event.swiss_rounds
        return details

    return _transition(
        event,
        actor=actor,
        allowed=(EventState.REGISTRATION_OPEN,),
        to=EventState.RUNNING,
        action="event.started",
        prepare=prepare,
        extra=lambda event: ["swiss_rounds"],
    )


def finish_event(event: Event, *, actor: Actor) -> Event:
    """running (no top cut, every Swiss round played and closed) or top_cut (the final
    closed) → finished (manager). Audit entry ``event.finished``. Raises NotAllowed or
    InvalidState (``wrong_event_state``, ``previous_round_open``, ``swiss_not_complete``,
    ``top_cut_pending``, ``bracket_not_complete``)."""

    def prepare(event: Event) -> dict:
        latest = Round.objects.filter(event=event).order_by("-number").first()
        if latest is None or latest.status != RoundStatus.CLOSED:
            raise InvalidState("previous_round_open", "close the last round first")
        if event.state == EventState.RUNNING:
            played = Round.objects.filter(event=event, stage=RoundStage.SWISS).count()
            if played < (event.swiss_rounds or 0):
                raise InvalidState(
                    "swiss_not_complete",
                    f"{played} of {event.swiss_rounds} Swiss rounds played",
                    played=played,
                )
            if event.top_cut_size:
                raise InvalidState("top_cut_pending", "generate the top cut first")
        elif latest.matches.count() != 1:
            raise InvalidState("bracket_not_complete", "the final has not been played")
        return {}

    return _transition(
        event,
        actor=actor,
        allowed=(EventState.RUNNING, EventState.TOP_CUT),
        to=EventState.FINISHED,
        action="event.finished",
        prepare=prepare,
    )
