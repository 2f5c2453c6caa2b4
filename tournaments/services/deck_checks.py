"""Deck checks at the table (rule 1−2−4): a judge counts a player's deck and sideboard
between games and the site compares them with the registered list.

Two changes, each one function used by the pages and the API: :func:`record_deck_check`
(the comparison is stored with its result and audited) and :func:`issue_deck_check_penalty`
(a penalty issued for a failed deck check, which then refers to it). The comparison itself
is the engine's (``decks.engine.deckcheck.compare_physical``); here the lists are read
with the event's card pool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, QuerySet

from cardpool.names import name_key
from decks.engine.check import Entry, resolve
from decks.engine.deckcheck import DeckCheckResult, compare_physical, counts_from_entries
from decks.engine.model import MAIN, SIDE
from decks.engine.parser import MAX_COUNT, parse_decklist
from decks.services import LoadedPool, format_rules, load_pool, released_from

from .. import policy
from ..models import (
    DeckCheck,
    DeckCheckMethod,
    Event,
    EventState,
    Infraction,
    Match,
    Penalty,
    Registration,
    RegistrationStatus,
    Round,
)
from . import audit
from ._common import Actor, require_state
from .errors import Conflict, InvalidInput, InvalidState
from .penalties import issue_penalty

# The infraction a failed deck check is about, in the built-in list.
DECK_MISMATCH = "deck_mismatch"
# Events where cards are on the tables: deck checks are done while the event runs
# (and at registration, when a judge checks decks as players arrive).
CHECK_STATES = (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT)
MAX_TEXT = 20_000


@dataclass(frozen=True)
class CountedCard:
    """One card as a judge counted it: copies in the deck and in the sideboard."""

    name: str
    printing: str | None = None
    main: int = 0
    side: int = 0


@dataclass(frozen=True)
class RegisteredCard:
    """One line of the registered list, with the copies in deck and sideboard (the rows
    of the count-per-card form)."""

    name: str
    printing: str | None
    printing_label: str
    main: int
    side: int


@dataclass(frozen=True)
class RegisteredList:
    entries: tuple[Entry, ...]
    cards: tuple[RegisteredCard, ...]
    main_count: int
    side_count: int


def _labels(loaded: LoadedPool) -> dict[str, str]:
    labels = {}
    for card in loaded.by_id.values():
        for printing in card.printings:
            labels.setdefault(printing.set_code, printing.set_name or printing.set_code)
    return labels


def registered_list(registration: Registration, loaded: LoadedPool, rules=None) -> RegisteredList:
    """The registration's decklist read with the card pool, one row per card and printing
    (deck and sideboard copies side by side), in the list's order."""
    rules = rules or format_rules(registration.event.format)
    entries, _problems = resolve(parse_decklist(registration.deck_text or ""), rules, loaded.pool)
    labels = _labels(loaded)
    rows: dict[tuple[str, str | None], list[int]] = {}
    names: dict[tuple[str, str | None], str] = {}
    for entry in entries:
        key = (entry.card.key, entry.set_code)
        names.setdefault(key, entry.card.name)
        counts = rows.setdefault(key, [0, 0])
        counts[0 if entry.section == MAIN else 1] += entry.count
    cards = tuple(
        RegisteredCard(names[key], key[1], labels.get(key[1], key[1] or ""), counts[0], counts[1])
        for key, counts in rows.items()
    )
    return RegisteredList(
        tuple(entries),
        cards,
        sum(card.main for card in cards),
        sum(card.side for card in cards),
    )


def _counted_entries(
    loaded: LoadedPool,
    rules,
    counted_text: str,
    cards: Iterable[CountedCard],
    registered: Iterable[Entry] = (),
) -> list[Entry]:
    """The counted cards as engine entries; an unreadable line or an unknown card or
    printing is an error naming it. A card of the registered list that the pool no longer
    knows (edited since) may still be counted under its registered name."""
    entries: list[Entry] = []
    unresolved = {
        name_key(entry.card.name): entry.card
        for entry in registered
        if entry.unresolved and entry.card.key.startswith("?")
    }
    if counted_text.strip():
        if len(counted_text) > MAX_TEXT:
            raise InvalidInput(
                "counted_text_too_long",
                f"the counted list is longer than {MAX_TEXT} characters",
                field="counted_text",
            )
        parsed, problems = resolve(parse_decklist(counted_text), rules, loaded.pool)
        problems = [
            problem
            for problem in problems
            if not (problem.code == "UNKNOWN_CARD" and name_key(problem.cards[0]) in unresolved)
        ]
        if problems:
            raise InvalidInput(
                "counted_unreadable",
                "; ".join(problem.message_en for problem in problems),
                field="counted_text",
                problems=[
                    {
                        "code": problem.code,
                        "lines": list(problem.lines),
                        "message_en": problem.message_en,
                        "message_ja": problem.message_ja,
                    }
                    for problem in problems
                ],
            )
        entries += parsed
    for index, item in enumerate(cards):
        for count in (item.main, item.side):
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_COUNT:
                raise InvalidInput(
                    "invalid_count",
                    f"card {index + 1} ({item.name}): counts must be whole numbers "
                    f"from 0 to {MAX_COUNT}",
                    field="cards",
                    index=index,
                    name=item.name,
                )
        card = loaded.pool.lookup(item.name) or unresolved.get(name_key(item.name))
        if card is None:
            raise InvalidInput(
                "unknown_card",
                f"card {index + 1}: no card is named {item.name!r}",
                field="cards",
                index=index,
                name=item.name,
            )
        set_code = None
        if item.printing and not card.key.startswith("?"):
            set_code = loaded.pool.resolve_set(item.printing)
            if set_code is None or card.printing(set_code) is None:
                raise InvalidInput(
                    "unknown_printing",
                    f"card {index + 1}: {item.printing!r} is not a printing of {card.name}",
                    field="cards",
                    index=index,
                    name=item.name,
                )
        if item.main:
            entries.append(Entry(card, item.main, MAIN, set_code))
        if item.side:
            entries.append(Entry(card, item.side, SIDE, set_code))
    return entries


def _stored_counts(entries: Iterable[Entry]) -> dict:
    counted = {MAIN: Counter(), SIDE: Counter()}
    for entry in entries:
        section = MAIN if entry.section == MAIN else SIDE
        counted[section][(entry.card.name, entry.set_code)] += entry.count
    return {
        section: [[name, code, count] for (name, code), count in counts.items()]
        for section, counts in counted.items()
    }


def compare(
    registration: Registration,
    *,
    counted_text: str = "",
    cards: Iterable[CountedCard] = (),
    loaded: LoadedPool | None = None,
) -> tuple[DeckCheckResult, dict, str]:
    """The comparison without storing it: (result, counted cards as stored, registered
    text), with the format's bans and legal sets on the event's date. Raises InvalidInput
    for counts that cannot be read."""
    fmt = registration.event.format
    loaded = loaded or load_pool(fmt.game)
    rules = format_rules(fmt)
    registered = registered_list(registration, loaded, rules)
    counted_entries = _counted_entries(
        loaded, rules, counted_text or "", list(cards), registered.entries
    )
    reg_main, reg_side = counts_from_entries(registered.entries)
    seen_main, seen_side = counts_from_entries(counted_entries)
    # A counted printing the format refuses on the event's day (banned, or its set not
    # legal yet; rule 1−2−1) is a discrepancy even where the registered line names none.
    result = compare_physical(
        reg_main,
        reg_side,
        seen_main,
        seen_side,
        rules=rules,
        printing_labels=_labels(loaded),
        as_of=registration.event.date,
        released_from=released_from(loaded),
    )
    return result, _stored_counts(counted_entries), registration.deck_text


def record_deck_check(
    registration: Registration,
    *,
    actor: Actor,
    counted_text: str = "",
    cards: Iterable[CountedCard] | None = None,
    round_: Round | None = None,
    note: str = "",
    loaded: LoadedPool | None = None,
) -> DeckCheck:
    """Compare the cards a judge counted (a pasted list, ``counted_text``, and/or counts
    per card, ``cards``) with the player's registered list and store the result.
    ``loaded``: the game's card pool when the caller has it already.

    Side effects: the DeckCheck; audit entry ``deck_check.recorded`` about the
    registration (so it shows on the player's page). Raises NotAllowed (``not_staff``),
    InvalidInput (``nothing_counted``, ``counted_unreadable``, ``counted_text_too_long``,
    ``unknown_card``, ``unknown_printing``, ``invalid_count``, ``wrong_event``) or
    InvalidState (``event_not_running``, ``not_active``, ``no_decklist``)."""
    # As stored now: a drop or a decklist change a moment ago counts.
    registration = Registration.objects.select_related("event__format__game").get(
        pk=registration.pk
    )
    event = registration.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_judge(access), "not_staff", "event staff only")
    require_state(event.state, CHECK_STATES, "event_not_running", "the event")
    require_state(
        registration.status, (RegistrationStatus.REGISTERED,), "not_active", "the registration"
    )
    if not registration.deck_text:
        raise InvalidState("no_decklist", "the player has no registered decklist")
    cards = list(cards or ())
    counted_text = counted_text or ""
    if not counted_text.strip() and not cards:
        raise InvalidInput("nothing_counted", "paste the cards or count them", field="cards")
    if round_ is not None and round_.event_id != event.pk:
        raise InvalidInput("wrong_event", "the round belongs to another event", field="round")
    result, counted, registered_text = compare(
        registration, counted_text=counted_text, cards=cards, loaded=loaded
    )
    note = (note or "").strip()
    with transaction.atomic():
        check = DeckCheck.objects.create(
            event=event,
            registration=registration,
            round=round_,
            judge=actor,
            method=DeckCheckMethod.COUNT if cards else DeckCheckMethod.PASTE,
            registered_text=registered_text,
            counted_text=counted_text,
            counted=counted,
            result=result.as_dict(),
            ok=result.ok,
            note=note,
        )
        audit.record(
            event,
            actor=actor,
            action="deck_check.recorded",
            obj=registration,
            reason=note,
            after={
                "deck_check": check.pk,
                "round": round_.number if round_ is not None else None,
                "deck_check_ok": result.ok,
                "discrepancies": len(result.discrepancies),
            },
        )
    return check


def summary(check: DeckCheck, language: str = "en") -> str:
    """The deck check's findings as plain text (one line each), e.g. a penalty's note."""
    key = "message_ja" if language.lower().startswith("ja") else "message_en"
    lines = [item.get(key, "") for item in check.result.get("discrepancies", [])]
    return "\n".join(line for line in lines if line)


def deck_mismatch_infraction(event: Event) -> Infraction | None:
    """The infraction list's entry for a deck that differs from its list, if the event's
    game has it (active)."""
    return Infraction.objects.filter(
        game_id=event.format.game_id, code=DECK_MISMATCH, active=True
    ).first()


def issue_deck_check_penalty(
    check: DeckCheck,
    *,
    actor: Actor,
    infraction: str | Infraction = "",
    kind: str | None = None,
    note: str = "",
    match: Match | None = None,
) -> Penalty:
    """Issue a penalty for a failed deck check (``services.issue_penalty``, with all its
    rules) and make it refer to the check, in one transaction.

    Side effects: those of ``issue_penalty``, with the penalty's ``deck_check`` and
    ``deck_check`` in its audit entry ``penalty.issued`` (on the player's page with the
    penalty; the audit log reads it as a deck check's penalty). Raises what
    ``issue_penalty`` raises, and InvalidState (``deck_check_ok``) for a check that found
    the deck as registered, Conflict (``deck_check_has_penalty``) for a check that
    already has one."""
    event = check.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_judge(access), "not_staff", "event staff only")
    if check.ok:
        raise InvalidState("deck_check_ok", "the deck matched its list: nothing to penalise")
    with transaction.atomic():
        check = DeckCheck.objects.select_for_update(no_key=True).get(pk=check.pk)
        if Penalty.objects.filter(deck_check=check).exists():
            raise Conflict("deck_check_has_penalty", "this deck check already has a penalty")
        registration = Registration.objects.select_related("event__format").get(
            pk=check.registration_id
        )
        return issue_penalty(
            registration,
            actor=actor,
            kind=kind,
            infraction=infraction,
            note=note,
            match=match,
            deck_check=check,
        )


def deck_checks_for(user, event: Event, access: policy.EventAccess | None = None) -> QuerySet:
    """The event's deck checks, newest first, for its staff (none for anyone else), with
    what the list shows loaded (one query)."""
    access = access or policy.access_for(user, event)
    checks = DeckCheck.objects.filter(event=event)
    if not policy.can_judge(access):
        return checks.none()
    return (
        checks.select_related("registration__player", "round", "judge")
        .annotate(penalty_count=Count("penalties"))
        .order_by("-created_at", "-id")
    )
