"""Registrations: sign-up (capacity and waitlist), decklists, drops, re-entry, late entry.

Decklists are checked with :func:`decks.services.check_text` against the event's format as
of the event's date, before any lock is taken (the check reads the whole card pool); an
illegal list is refused with the full report (:class:`~.errors.DeckIllegal`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from decks import services as deck_services
from decks.forms import MAX_DECKLIST_CHARS
from decks.models import Deck

from .. import policy
from ..models import Event, EventState, Registration, RegistrationStatus, Round, RoundStatus
from . import audit
from ._common import Actor, User, lock, require_reason, require_state, save
from .errors import CapacityFull, Conflict, DeckIllegal, InvalidInput, InvalidState, NotAllowed
from .events import leave_event

ACTIVE = (RegistrationStatus.REGISTERED, RegistrationStatus.WAITLISTED)
DECK_FIELDS = ("deck_text", "deck_report", "deck", "deck_submitted_at")


@dataclass(frozen=True)
class CheckedDeck:
    text: str
    report: dict
    deck: Deck | None


def check_decklist(
    event: Event, *, player: User, deck_text: str | None = None, deck: Deck | None = None
) -> CheckedDeck:
    """Check a pasted list or a stored deck of ``player`` for ``event`` (no writes).

    Returns a :class:`CheckedDeck`; raises InvalidInput (``decklist_missing``,
    ``decklist_too_long``), NotAllowed (``deck_not_owned``) or DeckIllegal.
    """
    if deck is not None:
        if deck.owner_id != player.pk:
            raise NotAllowed("deck_not_owned", "the deck belongs to another player")
        text = deck_services.deck_text(deck.entries.select_related("card", "printing_set"))
    elif deck_text and deck_text.strip():
        text = deck_text
    else:
        raise InvalidInput("decklist_missing", "paste a decklist or choose a stored deck")
    if len(text) > MAX_DECKLIST_CHARS:
        raise InvalidInput("decklist_too_long", f"at most {MAX_DECKLIST_CHARS} characters")
    report = deck_services.check_text(text, event.format, event.date)
    if not report.legal:
        raise DeckIllegal(report)
    return CheckedDeck(text=text, report=report.as_dict(), deck=deck)


def _apply_deck(registration: Registration, checked: CheckedDeck) -> None:
    registration.deck_text = checked.text
    registration.deck_report = checked.report
    registration.deck = checked.deck
    registration.deck_submitted_at = timezone.now()


def _deck_snapshot(registration: Registration) -> dict:
    return {
        "deck_text": registration.deck_text,
        "deck": registration.deck_id,
        "legal": (registration.deck_report or {}).get("legal"),
    }


def _staff_cannot_play(event: Event, player) -> None:
    access = policy.access_for(player, event)
    if access.roles & {policy.Role.ORGANIZER, policy.Role.CO_ORGANIZER, policy.Role.JUDGE}:
        raise NotAllowed("staff_cannot_play", "the event's staff cannot play in it")


def register_player(
    event: Event,
    *,
    actor: Actor,
    player: User | None = None,
    deck_text: str | None = None,
    deck: Deck | None = None,
    join_waitlist: bool = True,
) -> Registration:
    """Register ``player`` (default: the actor; someone else only by the event's staff).

    A decklist may come now or later (:func:`submit_decklist`); given now, it must be legal.
    While seats are left the registration is ``registered``, otherwise ``waitlisted`` — or,
    with ``join_waitlist=False``, :class:`CapacityFull` is raised. The seat count is read
    under the event row's lock, so concurrent sign-ups for the last seat admit one.
    A player who withdrew may register again (same row, back of the waitlist).

    Side effects: the registration row, audit entry ``registration.created``. Raises
    NotAllowed (``login_required``, ``not_staff``, ``staff_cannot_play``,
    ``disqualified``), InvalidState (``registration_not_open``, ``registration_closed``),
    Conflict (``already_registered``), CapacityFull, InvalidInput or DeckIllegal.
    """
    policy.require(policy.can_register(actor), "login_required")
    player = player or actor
    if player.pk != actor.pk:
        policy.require(policy.access_for(actor, event).is_staff, "not_staff")
    _staff_cannot_play(event, player)
    checked = None
    if deck_text or deck is not None:
        checked = check_decklist(event, player=player, deck_text=deck_text, deck=deck)
    try:
        with transaction.atomic():
            event = lock(Event, event.pk)
            require_state(
                event.state, (EventState.REGISTRATION_OPEN,), "registration_not_open", "the event"
            )
            now = timezone.now()
            if event.registration_deadline and now > event.registration_deadline:
                raise InvalidState("registration_closed", "the registration deadline has passed")
            registration = Registration.objects.filter(event=event, player=player).first()
            before = None
            if registration is not None:
                if registration.status in ACTIVE:
                    raise Conflict("already_registered", "already registered for this event")
                if registration.status == RegistrationStatus.DISQUALIFIED:
                    raise NotAllowed("disqualified", "disqualified from this event")
                before = {"status": registration.status}
            taken = Registration.objects.filter(
                event=event, status=RegistrationStatus.REGISTERED
            ).count()
            if taken >= event.capacity:
                if not join_waitlist:
                    raise CapacityFull("capacity_full", f"all {event.capacity} seats are taken")
                status = RegistrationStatus.WAITLISTED
            else:
                status = RegistrationStatus.REGISTERED
            if registration is None:
                registration = Registration(event=event, player=player)
            registration.status = status
            registration.registered_at = now
            registration.dropped_after_round = None
            if checked is not None:
                _apply_deck(registration, checked)
            if registration.pk is None:
                registration.save()
            else:
                fields = ["status", "registered_at", "dropped_after_round"]
                save(registration, *fields, *(DECK_FIELDS if checked else ()))
            audit.record(
                event,
                actor=actor,
                action="registration.created",
                obj=registration,
                before=before,
                after={
                    "player": player.pk,
                    "status": status,
                    "decklist": checked is not None,
                },
            )
    except IntegrityError as exc:
        raise Conflict("already_registered", "already registered for this event") from exc
    return registration


def submit_decklist(
    registration: Registration,
    *,
    actor: Actor,
    deck_text: str | None = None,
    deck: Deck | None = None,
    reason: str = "",
) -> Registration:
    """Store a legal decklist for ``registration`` (the player or the event's staff).

    Lists lock at the decklist deadline, when the event starts, and by the ``locked``
    flag; a locked list can be changed only by the event's staff, with a reason.
    Side effects: the registration's deck fields, audit entry
    ``registration.decklist_submitted`` (with the old and new list). Raises NotAllowed
    (``not_own_registration``), InvalidState (``event_not_open``, ``not_active``,
    ``decklist_locked``), InvalidInput (``reason_required``, …) or DeckIllegal.
    """
    event = Event.objects.select_related("format").get(pk=registration.event_id)
    access = policy.access_for(actor, event)
    policy.require(policy.can_act_for(access, registration), "not_own_registration")
    player = registration.player
    checked = check_decklist(event, player=player, deck_text=deck_text, deck=deck)
    with transaction.atomic():
        registration = lock(Registration, registration.pk)
        event = Event.objects.get(pk=event.pk)
        require_state(
            event.state,
            (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT),
            "event_not_open",
            "the event",
        )
        require_state(registration.status, ACTIVE, "not_active", "the registration")
        if decklist_locked(event, registration):
            if not policy.can_judge(access):
                raise InvalidState("decklist_locked", "decklists are locked; ask a judge")
            reason = require_reason(reason)
        before = _deck_snapshot(registration)
        _apply_deck(registration, checked)
        save(registration, *DECK_FIELDS)
        audit.record(
            event,
            actor=actor,
            action="registration.decklist_submitted",
            obj=registration,
            reason=reason,
            before=before,
            after=_deck_snapshot(registration),
        )
    return registration


def decklist_locked(event: Event, registration: Registration, now=None) -> bool:
    now = now or timezone.now()
    return (
        registration.locked
        or event.state != EventState.REGISTRATION_OPEN
        or (event.decklist_deadline is not None and now >= event.decklist_deadline)
    )


def drop_player(registration: Registration, *, actor: Actor, reason: str = "") -> Registration:
    """Drop (or, before the event starts, withdraw) a player: the player or the staff.

    Effective from the next pairing: rounds already paired stay as they are (an
    unpublished round can be re-paired). ``dropped_after_round`` is the last round the
    player is paired in (0 before round 1). A registered player withdrawing while
    registration is open frees a seat, which goes to the first waitlisted player.
    Side effects: the registration, promoted registrations, audit entry
    ``registration.dropped``. Raises NotAllowed (``not_own_registration``) or InvalidState
    (``event_not_open``, ``not_active``).
    """
    event = registration.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_act_for(access, registration), "not_own_registration")
    with transaction.atomic():
        event = lock(Event, event.pk)
        registration = lock(Registration, registration.pk)
        require_state(
            event.state,
            (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT),
            "event_not_open",
            "the event",
        )
        require_state(registration.status, ACTIVE, "not_active", "the registration")
        before = {
            "status": registration.status,
            "dropped_after_round": registration.dropped_after_round,
        }
        after = leave_event(event, registration, RegistrationStatus.DROPPED)
        audit.record(
            event,
            actor=actor,
            action="registration.dropped",
            obj=registration,
            reason=reason,
            before=before,
            after=after,
        )
    return registration


def _require_seat(event: Event) -> None:
    taken = Registration.objects.filter(event=event, status=RegistrationStatus.REGISTERED).count()
    if taken >= event.capacity:
        raise CapacityFull("capacity_full", f"all {event.capacity} seats are taken")


def reenter(registration: Registration, *, actor: Actor, reason: str = "") -> Registration:
    """Bring a dropped player back into the Swiss rounds, if the event allows re-entry
    (the player or the staff). Never after the cut (MTR 2.10). The player keeps the
    decklist and results from before the drop; rounds missed while dropped count as
    nothing. A player who withdrew before round 1 comes back as a late entry instead.

    Side effects: the registration, audit entry ``registration.reentered``. Raises
    NotAllowed, InvalidState (``reentry_not_allowed``, ``event_not_running``,
    ``not_dropped``, ``use_late_entry``) or CapacityFull.
    """
    event = registration.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_act_for(access, registration), "not_own_registration")
    with transaction.atomic():
        event = lock(Event, event.pk)
        registration = lock(Registration, registration.pk)
        if not event.allow_reentry:
            raise InvalidState("reentry_not_allowed", "this event does not allow re-entry")
        require_state(event.state, (EventState.RUNNING,), "event_not_running", "the event")
        require_state(
            registration.status, (RegistrationStatus.DROPPED,), "not_dropped", "the registration"
        )
        if not registration.dropped_after_round:
            raise InvalidState("use_late_entry", "never played: add the player as a late entry")
        _require_seat(event)
        before = {
            "status": registration.status,
            "dropped_after_round": registration.dropped_after_round,
        }
        registration.status = RegistrationStatus.REGISTERED
        registration.dropped_after_round = None
        save(registration, "status", "dropped_after_round")
        audit.record(
            event,
            actor=actor,
            action="registration.reentered",
            obj=registration,
            reason=reason,
            before=before,
            after={"status": registration.status, "dropped_after_round": None},
        )
    return registration


def next_pairing_round(event: Event) -> int:
    """The number of the first round whose pairing can still include a new player: one
    after the last published round (an unpublished round can be re-paired)."""
    numbers = Round.objects.filter(event=event).exclude(status=RoundStatus.DRAFT)
    last = numbers.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def add_late_entry(
    event: Event,
    *,
    actor: Actor,
    player: User,
    deck_text: str | None = None,
    deck: Deck | None = None,
    reason: str = "",
) -> Registration:
    """Add ``player`` to a running event (the staff). The decklist is needed (a legal one
    submitted earlier, e.g. while waitlisted, is kept). The player joins from
    ``late_entry_round`` (see :func:`next_pairing_round`); the event's
    ``late_entry_policy`` says what the missed rounds count as.

    Side effects: the registration (new, or the waitlisted/withdrawn one), audit entry
    ``registration.late_entry``. Raises NotAllowed (``not_staff``, ``staff_cannot_play``,
    ``disqualified``), InvalidState (``event_not_running``, ``use_reentry``), Conflict
    (``already_registered``), CapacityFull, InvalidInput or DeckIllegal.
    """
    access = policy.access_for(actor, event)
    policy.require(policy.can_judge(access), "not_staff")
    _staff_cannot_play(event, player)
    existing = Registration.objects.filter(event=event, player=player).first()
    checked = None
    if deck_text or deck is not None:
        checked = check_decklist(event, player=player, deck_text=deck_text, deck=deck)
    elif existing is None or not existing.has_decklist:
        raise InvalidInput("decklist_missing", "a late entry needs a legal decklist")
    try:
        with transaction.atomic():
            event = lock(Event, event.pk)
            require_state(event.state, (EventState.RUNNING,), "event_not_running", "the event")
            registration = Registration.objects.filter(event=event, player=player).first()
            before = None
            if registration is not None:
                before = {
                    "status": registration.status,
                    "dropped_after_round": registration.dropped_after_round,
                }
                if registration.status == RegistrationStatus.REGISTERED:
                    raise Conflict("already_registered", "already playing in this event")
                if registration.status == RegistrationStatus.DISQUALIFIED:
                    raise NotAllowed("disqualified", "disqualified from this event")
                if registration.dropped_after_round:
                    raise InvalidState("use_reentry", "the player has played: use re-entry")
            _require_seat(event)
            if registration is None:
                registration = Registration(
                    event=event, player=player, registered_at=timezone.now()
                )
            registration.status = RegistrationStatus.REGISTERED
            registration.dropped_after_round = None
            registration.late_entry_round = next_pairing_round(event)
            registration.locked = True
            if checked is not None:
                _apply_deck(registration, checked)
            fields = ["status", "dropped_after_round", "late_entry_round", "locked"]
            if registration.pk is None:
                registration.save()
            else:
                save(registration, *fields, *(DECK_FIELDS if checked else ()))
            audit.record(
                event,
                actor=actor,
                action="registration.late_entry",
                obj=registration,
                reason=reason,
                before=before,
                after={
                    "player": player.pk,
                    "status": registration.status,
                    "late_entry_round": registration.late_entry_round,
                    "late_entry_policy": event.late_entry_policy,
                },
            )
    except IntegrityError as exc:
        raise Conflict("already_registered", "already registered for this event") from exc
    return registration
