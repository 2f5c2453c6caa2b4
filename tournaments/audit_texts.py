"""The audit log as people read it: for each :class:`~tournaments.models.AuditEntry`, a
sentence in the reader's language ("Round 2 published"), the object it is about (a
player's name, a round, a table) and the changes as a diff of the changed fields only,
each with its label and human values (choice labels, Yes/No, times in the site's time
zone, people by name, games as their endings).

Every action the services write (``services.audit.record(action=...)``) has an entry in
:data:`ACTIONS`; tests/tournaments/test_audit_texts.py reads the services and fails on an
action without one. An unknown action (an old entry) still reads: "Match: time extended".

One page of entries costs a fixed number of queries: the object names come with the
entries (:func:`with_names`, correlated subqueries) and the ids inside the data (the
players of a table, the user who reported) are looked up once for the whole page, by kind.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Case, CharField, IntegerField, OuterRef, Subquery, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from . import policy
from .engine.games import GameEnd
from .forms import GAME_END_CHOICES
from .models import (
    EventState,
    LateEntryPolicy,
    MatchOutcome,
    MatchStatus,
    PenaltyKind,
    RegistrationStatus,
    RoundStage,
    RoundStatus,
    StaffRole,
    TiebreakProfile,
    TimeoutPolicy,
)

EN_DASH = "\u2013"
EMPTY = "—"


@dataclass(frozen=True)
class Action:
    label: object  # short, for the filter: "Result reported"
    sentence: object  # with the entry's names: "Result of table %(table)s in round ..."


# Every action the services write. Placeholders: %(player)s (the registered or penalised
# player), %(user)s (the staff member), %(round)s, %(table)s, %(penalty)s.
ACTIONS: dict[str, Action] = {
    "event.created": Action(_("Event created"), _("Event created")),
    "event.updated": Action(_("Settings changed"), _("Event settings changed")),
    "event.registration_opened": Action(_("Registration opened"), _("Registration opened")),
    "event.started": Action(_("Event started"), _("Event started")),
    "event.top_cut_generated": Action(
        _("Top cut generated"), _("Top cut generated (round %(round)s)")
    ),
    "event.finished": Action(_("Event finished"), _("Event finished")),
    "staff.added": Action(_("Staff member added"), _("%(user)s added to the staff")),
    "staff.removed": Action(_("Staff member removed"), _("%(user)s removed from the staff")),
    "registration.created": Action(_("Player registered"), _("%(player)s registered")),
    "registration.claim_link_made": Action(
        _("Claim link made"), _("Link to claim the account of %(player)s made")
    ),
    "registration.account_claimed": Action(
        _("Account claimed"), _("%(player)s claimed their account")
    ),
    "registration.account_accepted": Action(
        _("Account joined"), _("%(player)s added this event's imported records to their account")
    ),
    "registration.decklist_submitted": Action(
        _("Decklist submitted"), _("Decklist of %(player)s submitted")
    ),
    "registration.dropped": Action(_("Player dropped"), _("%(player)s dropped")),
    "registration.reentered": Action(_("Player re-entered"), _("%(player)s re-entered")),
    "registration.late_entry": Action(_("Late entry"), _("%(player)s entered late")),
    "round.generated": Action(_("Round paired"), _("Round %(round)s paired")),
    "round.repaired": Action(_("Round paired again"), _("Round %(round)s paired again")),
    "round.pairing_edited": Action(_("Pairings edited"), _("Pairings of round %(round)s edited")),
    "round.published": Action(_("Round published"), _("Round %(round)s published")),
    "round.clock_started": Action(_("Clock started"), _("Clock of round %(round)s started")),
    "round.closed": Action(_("Round closed"), _("Round %(round)s closed")),
    "round.bracket_advanced": Action(
        _("Next top-cut round paired"), _("Top-cut round %(round)s paired")
    ),
    "match.reported": Action(
        _("Result reported"), _("Result of table %(table)s in round %(round)s reported")
    ),
    "match.confirmed": Action(
        _("Result confirmed"), _("Result of table %(table)s in round %(round)s confirmed")
    ),
    "match.disputed": Action(
        _("Result disputed"), _("Result of table %(table)s in round %(round)s disputed")
    ),
    "match.overridden": Action(
        _("Result changed by the staff"),
        _("Result of table %(table)s in round %(round)s changed by the staff"),
    ),
    "match.time_extended": Action(
        _("Time extended"), _("Time of table %(table)s in round %(round)s extended")
    ),
    "penalty.issued": Action(_("Penalty issued"), _("%(penalty)s for %(player)s")),
    "deck_check.recorded": Action(_("Deck check"), _("Deck check of %(player)s")),
    "event.imported": Action(_("Event file imported"), _("Event imported from an event file")),
    "webhook.secret_rotated": Action(_("Webhook secret rotated"), _("Webhook secret rotated")),
}
# An import that replaced an existing event ("created": false in its data).
EVENT_REPLACED = _("Event replaced by an imported event file")
# A penalty issued for a failed deck check: its entry names the check ("deck_check").
DECK_CHECK_PENALTY = _("%(penalty)s for %(player)s (deck check)")

# The groups of the filter, by the action's prefix.
GROUPS = {
    "event": pgettext_lazy("audit", "Event"),
    "staff": pgettext_lazy("audit", "Staff"),
    "registration": pgettext_lazy("audit", "Players"),
    "round": pgettext_lazy("audit", "Rounds"),
    "match": pgettext_lazy("audit", "Results"),
    "penalty": pgettext_lazy("audit", "Penalties"),
    "deck_check": pgettext_lazy("audit", "Deck checks"),
    "webhook": pgettext_lazy("audit", "Webhooks"),
}

# Labels of keys that are no model field of the entry's object (or need other words).
LABELS = {
    "decklist": _("Decklist submitted"),
    "legal": _("Legal deck"),
    "players": _("Registered players"),
    "decklists_locked": _("Decklists locked"),
    "promoted_from_waitlist": _("Moved up from the waitlist"),
    "added": _("Minutes added"),
    "record": _("Games won–lost–drawn"),
    "reported_by": _("Reported by"),
    "match_result": _("Match result"),
    "seeds": _("Seeds"),
    "round": pgettext_lazy("round", "Round"),
    "tables": _("Pairings"),
    "rematches_allowed": _("Rematches allowed"),
    "registration": _("Player"),
    "player": _("Player"),
    "user": _("Staff member"),
    "infraction": _("Infraction"),
    "deck_check_ok": _("Deck matches the registered list"),
    "discrepancies": _("Discrepancies found"),
}

# Labels of one action's keys: an import's counts are named like the event's relations
# ("registrations"), which are no fields with a label of their own.
ACTION_LABELS = {
    "event.imported": {
        "exported_at": _("File exported at"),
        "created": _("New event"),
        "users_created": _("Placeholder accounts created"),
        "users_matched": _("Existing accounts matched"),
        "registrations": _("Registrations imported"),
        "rounds": _("Rounds imported"),
        "matches": _("Matches imported"),
        "submissions": _("Result reports imported"),
        "penalties": _("Penalties imported"),
        "deck_checks": _("Deck checks imported"),
        "audit_entries": _("Audit entries imported"),
    },
}

# Data kept for the record but not worth a line: counters, ids shown by another key, the
# pairing engine's proof.
HIDDEN = frozenset(
    {
        "version",
        "deck",
        "infraction_code",
        "seed_attempt",
        "proof",
        "objective",
        "lower_bound",
        "deck_check",
    }
)

# Choices by key, and by (object type, key) where the key means different things.
CHOICES = {
    "state": EventState,
    "role": StaffRole,
    "kind": PenaltyKind,
    "suggested_kind": PenaltyKind,
    "outcome": MatchOutcome,
    "stage": RoundStage,
    "tiebreak_profile": TiebreakProfile,
    "swiss_timeout_policy": TimeoutPolicy,
    "top_cut_timeout_policy": TimeoutPolicy,
    "late_entry_policy": LateEntryPolicy,
}
TYPE_CHOICES = {
    ("registration", "status"): RegistrationStatus,
    ("penalty", "status"): RegistrationStatus,
    ("match", "status"): MatchStatus,
    ("round", "status"): RoundStatus,
}

GAME_ENDS = {value: label for value, label in GAME_END_CHOICES if value}
GAME_ENDS[GameEnd.PENALTY.value] = _("Game loss (penalty)")

# Keys holding the id of a user, or of a registration, in the entry's data.
USER_KEYS = {"user", "player", "reported_by"}
REGISTRATION_KEYS = {"registration"}
REGISTRATION_LIST_KEYS = {"seeds", "promoted_from_waitlist"}
# Pairings with more tables than this read as a count ("120 tables").
TABLES_LISTED = 8


def action_label(action: str) -> str:
    """The action's short label for a filter; a readable form of an unknown one."""
    known = ACTIONS.get(action)
    if known is not None:
        return str(known.label)
    return _fallback(action)


def group_label(prefix: str) -> str:
    """The filter's group of actions (``match.``): "Results (all)"."""
    name = prefix.rstrip(".")
    group = GROUPS.get(name)
    text = str(group) if group is not None else name.replace("_", " ").capitalize()
    return gettext("%(group)s (all)") % {"group": text}


def _fallback(action: str) -> str:
    prefix, _dot, rest = action.partition(".")
    group = GROUPS.get(prefix)
    group_text = str(group) if group is not None else prefix.replace("_", " ").capitalize()
    if not rest:
        return group_text
    return gettext("%(group)s: %(action)s") % {
        "group": group_text,
        "action": rest.replace("_", " "),
    }


def type_label(object_type: str) -> str:
    """The object type's name for a filter: "Registration"."""
    try:
        return capfirst(str(apps.get_model("tournaments", object_type)._meta.verbose_name))
    except LookupError:
        return object_type.replace("_", " ").capitalize()


# --- names of the objects, with the entries ---------------------------------------------


def _of_type(object_type: str, value):
    return Case(When(object_type=object_type, then=value), default=Value(None))


def with_names(entries, user, event, access):
    """The entries with what names their object, in the same query: ``person_name`` (the
    staff member, the registered player, the penalised player), ``penalty_kind``,
    ``round_number`` and ``match_table``. Correlated subqueries over the policy's filters,
    so a page costs one query whatever it shows."""
    object_id = OuterRef("object_id")
    user_model = get_user_model()
    username = user_model.USERNAME_FIELD
    registrations = policy.registrations_visible_to(user, event, access).filter(pk=object_id)
    rounds = policy.rounds_visible_to(user, event, access).filter(pk=object_id)
    matches = policy.matches_visible_to(user, event, access).filter(pk=object_id)
    penalties = policy.penalties_visible_to(user, event, access).filter(pk=object_id)
    staff_user_id = Cast(Coalesce(KT("after__user"), KT("before__user")), IntegerField())
    return entries.annotate(
        staff_user_id=_of_type("eventstaff", staff_user_id),
    ).annotate(
        person_name=Case(
            When(
                object_type="eventstaff",
                then=Subquery(
                    user_model._default_manager.filter(pk=OuterRef("staff_user_id")).values(
                        username
                    )[:1]
                ),
            ),
            When(
                object_type="registration",
                then=Subquery(registrations.values(f"player__{username}")[:1]),
            ),
            When(
                object_type="penalty",
                then=Subquery(penalties.values(f"registration__player__{username}")[:1]),
            ),
            default=Value(None),
            output_field=CharField(),
        ),
        person_id=Case(
            When(object_type="registration", then=Subquery(registrations.values("player")[:1])),
            When(object_type="penalty", then=Subquery(penalties.values("registration")[:1])),
            default=Value(None),
            output_field=IntegerField(),
        ),
        penalty_kind=_of_type("penalty", Subquery(penalties.values("kind")[:1])),
        round_number=Case(
            When(object_type="round", then=Subquery(rounds.values("number")[:1])),
            When(object_type="match", then=Subquery(matches.values("round__number")[:1])),
            default=Value(None),
            output_field=IntegerField(),
        ),
        match_table=_of_type("match", Subquery(matches.values("table")[:1])),
    )


# --- values ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """An id in the data, named once the page's ids are looked up."""

    kind: str  # "user", "registration", "match" or "format"
    pk: int


def moment_text(moment: dt.datetime) -> str:
    """A time as every audit page shows it: in the site's time zone, to the minute."""
    return date_format(timezone.localtime(moment), "Y-m-d H:i")


def _plain(value) -> str:
    if value is None or value == "":
        return EMPTY
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    if isinstance(value, str):
        moment = None
        if "T" in value:
            try:
                moment = parse_datetime(value)
            except ValueError:  # looks like a time but is none ("2024-02-30T10:00")
                moment = None
        if moment is not None:
            if timezone.is_naive(moment):
                moment = timezone.make_aware(moment, dt.UTC)
            return moment_text(moment)
        return value
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value) or EMPTY
    if isinstance(value, dict):
        return ", ".join(f"{key}: {_plain(item)}" for key, item in value.items()) or EMPTY
    return str(value)


def _game_text(number: int, game) -> str:
    if not isinstance(game, dict):
        return _plain(game)
    end = game.get("end")
    text = str(GAME_ENDS.get(end, end or EMPTY))
    hp = game.get("hp")
    if end != GameEnd.PENALTY and isinstance(hp, list) and len(hp) == 2:
        text += f" (HP {_plain(hp[0])}{EN_DASH}{_plain(hp[1])})"
    return gettext("Game %(number)s: %(text)s") % {"number": number, "text": text}


def _pair(pair) -> list:
    """A table's players as pieces: "alice – bob", "alice (bye)"."""
    if not isinstance(pair, list) or len(pair) != 2:
        return [_plain(pair)]
    first, second = (Ref("registration", p) if isinstance(p, int) else _plain(p) for p in pair)
    if pair[1] is None:
        return [first, " ", gettext("(bye)")]
    return [first, f" {EN_DASH} ", second]


# --- the diff -------------------------------------------------------------------------


@dataclass
class Change:
    label: str
    before: list | None  # pieces (text and Refs); None: the key was not there
    after: list | None
    multiline: bool = False

    @property
    def has_before(self) -> bool:
        return self.before is not None

    @property
    def has_after(self) -> bool:
        return self.after is not None


def _field_label(object_type: str, key: str, action: str = "") -> str:
    """The label of one key of an entry's data: the action's own word for it, the
    shared one, or the verbose name of the field of that name on the entry's object (or
    the event). Only a field with a verbose name counts: a key named like a reverse
    relation ("registrations", "matches") is no field a person set, and has none."""
    own = ACTION_LABELS.get(action, {}).get(key)
    if own is not None:
        return capfirst(str(own))
    if key in LABELS:
        return capfirst(str(LABELS[key]))
    for model_name in (object_type, "event"):
        try:
            field = apps.get_model("tournaments", model_name)._meta.get_field(key)
        except (LookupError, FieldDoesNotExist):
            continue
        verbose_name = getattr(field, "verbose_name", None)
        if verbose_name is not None:
            return capfirst(str(verbose_name))
    return capfirst(key.replace("_", " "))


class _Reader:
    """Turns one entry's data into changes; the ids it meets are kept as Refs."""

    def __init__(self, entry):
        self.entry = entry
        self.type = entry.object_type

    def value(self, key: str, value) -> list:
        if value is None or value == "":
            return [EMPTY]
        choices = TYPE_CHOICES.get((self.type, key)) or CHOICES.get(key)
        if choices is not None and isinstance(value, str):
            try:
                return [str(choices(value).label)]
            except ValueError:
                return [value]
        if isinstance(value, int) and not isinstance(value, bool):
            # the annotated person: a penalty's registration, a registration's user
            person = getattr(self.entry, "person_id", None)
            if key in REGISTRATION_KEYS:
                if self.type == "penalty" and value == person and self.entry.person_name:
                    return [self.entry.person_name]
                return [Ref("registration", value)]
            if key in USER_KEYS:
                if self.type == "registration" and key == "player" and value == person:
                    return [self.entry.person_name or Ref("user", value)]
                if self.type == "eventstaff" and self.entry.person_name:
                    return [self.entry.person_name]
                return [Ref("user", value)]
            if key == "match":
                return [Ref("match", value)]
            if key == "format" and self.type == "event":
                return [Ref("format", value)]
        if key == "games" and isinstance(value, list):
            if not value:
                return [EMPTY]
            return ["; ".join(_game_text(n, g) for n, g in enumerate(value, 1))]
        if key in REGISTRATION_LIST_KEYS and isinstance(value, list):
            pieces: list = []
            for index, item in enumerate(value):
                if index:
                    pieces.append(", ")
                pieces.append(Ref("registration", item) if isinstance(item, int) else _plain(item))
            return pieces or [EMPTY]
        if key == "rematches_allowed" and isinstance(value, list):
            pieces = []
            for index, pair in enumerate(value):
                if index:
                    pieces.append("; ")
                pieces += _pair(list(pair) if isinstance(pair, (list, tuple)) else pair)
            return pieces or [EMPTY]
        if key == "record" and isinstance(value, str):
            return [value.replace("-", EN_DASH)]
        return [_plain(value)]

    def table_changes(self, before, after) -> list[Change]:
        """Pairings: the tables that changed, each on its line; many as a count."""
        before = before if isinstance(before, dict) else None
        after = after if isinstance(after, dict) else None
        tables = sorted(
            {str(t) for t in (before or {})} | {str(t) for t in (after or {})},
            key=lambda t: (len(t), t),
        )

        def get(side, table):
            if side is None:
                return None
            return side.get(table, side.get(int(table)) if table.isdigit() else None)

        changed = [
            t for t in tables if before is None or after is None or get(before, t) != get(after, t)
        ]
        if len(changed) > TABLES_LISTED:
            count = len(changed)
            if before is not None and after is not None:
                text = ngettext("%(count)s table changed", "%(count)s tables changed", count)
            else:
                text = ngettext("%(count)s table", "%(count)s tables", count)
            return [Change(_field_label(self.type, "tables"), None, [text % {"count": count}])]
        changes = []
        for table in changed:
            label = pgettext("audit", "Table %(table)s") % {"table": table}
            old, new = get(before, table), get(after, table)
            changes.append(
                Change(
                    label,
                    None if before is None else (_pair(old) if old is not None else [EMPTY]),
                    None if after is None else (_pair(new) if new is not None else [EMPTY]),
                )
            )
        return changes

    def changes(self, before, after, prefix: str = "") -> list[Change]:
        before = before if isinstance(before, dict) else {}
        after = after if isinstance(after, dict) else {}
        # a penalty's match: its id after, the result before; the result goes with the result
        if self.type == "penalty" and isinstance(before.get("match"), dict):
            before = {**before, "match_result": before["match"]}
            del before["match"]
        keys = list(before) + [key for key in after if key not in before]
        # jsonb (PostgreSQL) keeps no key order: the model's field order, then the rest
        keys.sort(key=self._order)
        out: list[Change] = []
        for key in keys:
            if key in HIDDEN:
                continue
            old, new = before.get(key), after.get(key)
            if key in before and key in after and old == new:
                continue
            if self.type == "round" and key == "number":
                continue  # the sentence says it
            if (key in before) != (key in after) and (old if key in before else new) in (
                None,
                "",
                [],
                {},
            ):
                continue  # a creation's empty value (no note, no match): nothing to read
            if key == "tables":
                out += self.table_changes(
                    old if key in before else None, new if key in after else None
                )
                continue
            if key == "match_result":
                nested = _Reader(self.entry)
                nested.type = "match"
                inner = nested.changes(old, new, prefix=_field_label(self.type, key))
                out += inner
                continue
            label = _field_label(self.type, key, self.entry.action)
            if prefix:
                label = gettext("%(group)s: %(field)s") % {"group": prefix, "field": label}
            multiline = any(isinstance(v, str) and "\n" in v for v in (old, new))
            out.append(
                Change(
                    label,
                    self.value(key, old) if key in before else None,
                    self.value(key, new) if key in after else None,
                    multiline=multiline,
                )
            )
        return out

    def _order(self, key: str):
        own = list(ACTION_LABELS.get(self.entry.action, ()))
        if key in own:
            return (-1, own.index(key), key)
        for model_name in (self.type, "event"):
            try:
                fields = [f.name for f in apps.get_model("tournaments", model_name)._meta.fields]
            except LookupError:
                continue
            if key in fields:
                return (0 if model_name == self.type else 1, fields.index(key), key)
        return (2, 0, key)


# --- the rows -------------------------------------------------------------------------


def _sentence(entry, event) -> str:
    after = entry.after if isinstance(entry.after, dict) else {}
    unknown = f"#{entry.object_id}" if entry.object_id is not None else EMPTY
    round_number = getattr(entry, "round_number", None)
    names = {
        "player": entry.person_name or unknown,
        "user": entry.person_name or unknown,
        "round": round_number or after.get("round") or after.get("number") or "?",
        "table": getattr(entry, "match_table", None) or "?",
        "penalty": EMPTY,
        "event": event.name,
    }
    kind = getattr(entry, "penalty_kind", None) or after.get("kind")
    if kind:
        try:
            names["penalty"] = str(PenaltyKind(kind).label)
        except ValueError:
            names["penalty"] = str(kind)
    action = ACTIONS.get(entry.action)
    if action is None:
        return _fallback(entry.action)
    if entry.action == "penalty.issued" and after.get("deck_check"):
        return str(DECK_CHECK_PENALTY) % names
    if entry.action == "event.imported" and after.get("created") is False:
        return str(EVENT_REPLACED)
    return str(action.sentence) % names


def _resolve(refs: set[Ref], user, event, access) -> dict[Ref, str]:
    """Names for the ids the page's entries hold: one query per kind met."""
    names: dict[Ref, str] = {}
    by_kind: dict[str, set[int]] = {}
    for ref in refs:
        by_kind.setdefault(ref.kind, set()).add(ref.pk)
    user_model = get_user_model()
    username = user_model.USERNAME_FIELD
    if "user" in by_kind:
        rows = user_model._default_manager.filter(pk__in=by_kind["user"]).values_list(
            "pk", username
        )
        names.update({Ref("user", pk): name for pk, name in rows})
    if "registration" in by_kind:
        rows = (
            policy.registrations_visible_to(user, event, access)
            .filter(pk__in=by_kind["registration"])
            .values_list("pk", f"player__{username}")
        )
        names.update({Ref("registration", pk): name for pk, name in rows})
    if "match" in by_kind:
        rows = (
            policy.matches_visible_to(user, event, access)
            .filter(pk__in=by_kind["match"])
            .values_list("pk", "round__number", "table")
        )
        for pk, number, table in rows:
            names[Ref("match", pk)] = pgettext("round", "Round %(number)s, table %(table)s") % {
                "number": number,
                "table": table,
            }
    if "format" in by_kind:
        from decks.models import Format

        rows = Format.objects.filter(pk__in=by_kind["format"]).values_list("pk", "name")
        names.update({Ref("format", pk): name for pk, name in rows})
    return names


def _joined(pieces: list | None, names: dict) -> str | None:
    if pieces is None:
        return None
    return "".join(
        (names.get(piece) or f"#{piece.pk}") if isinstance(piece, Ref) else str(piece)
        for piece in pieces
    )


def act_by(name: str, imported: bool) -> str:
    """Who did an act, as shown: an act an event-file import wrote is what the file states,
    never an act of an account here ("per the imported file: NAME")."""
    if not imported:
        return name
    if not name:
        return gettext("per the imported file")
    return gettext("per the imported file: %(name)s") % {"name": name}


def object_name(entry, event) -> str:
    """What the entry is about: the event's name, "Round 2, table 4", a player's name."""
    if entry.object_type == "event":
        return event.name
    round_number = getattr(entry, "round_number", None)
    if entry.object_type == "match" and round_number is not None:
        return pgettext("round", "Round %(number)s, table %(table)s") % {
            "number": round_number,
            "table": entry.match_table,
        }
    if entry.object_type == "round" and round_number is not None:
        return pgettext("round", "Round %(number)s") % {"number": round_number}
    return getattr(entry, "person_name", None) or ""


def audit_rows(entries, *, user, event, access, changes: bool = True) -> list[dict]:
    """The entries (annotated by :func:`with_names`) as the audit pages show them: the
    sentence, the object's name, who, when, why, and the changed fields. Looking up the
    ids in the data costs one query per kind met on the page (none without ``changes``)."""
    rows = []
    refs: set[Ref] = set()
    for entry in entries:
        found = _Reader(entry).changes(entry.before, entry.after) if changes else []
        for change in found:
            for side in (change.before, change.after):
                refs.update(piece for piece in side or () if isinstance(piece, Ref))
        rows.append(
            {
                "entry": entry,
                "sentence": _sentence(entry, event),
                "action_label": action_label(entry.action),
                "object": object_name(entry, event),
                "when": moment_text(entry.created_at),
                "actor": act_by(
                    entry.actor.get_username() if entry.actor_id else "", entry.imported
                ),
                "changes": found,
            }
        )
    names = _resolve(refs, user, event, access) if refs else {}
    for row in rows:
        row["changes"] = [
            {
                "label": change.label,
                "has_before": change.has_before,
                "has_after": change.has_after,
                "before": _joined(change.before, names),
                "after": _joined(change.after, names),
                "multiline": change.multiline,
            }
            for change in row["changes"]
        ]
    return rows


def entry_texts(entry, event) -> dict:
    """One entry without the database (tests, a single entry): its sentence and changes,
    ids inside the data shown as ``#id``."""
    for name in ("person_name", "person_id", "penalty_kind", "round_number", "match_table"):
        if not hasattr(entry, name):
            setattr(entry, name, None)
    found = _Reader(entry).changes(entry.before, entry.after)
    return {
        "sentence": _sentence(entry, event),
        "changes": [
            (change.label, _joined(change.before, {}), _joined(change.after, {}))
            for change in found
        ],
    }


__all__ = [
    "ACTIONS",
    "action_label",
    "audit_rows",
    "entry_texts",
    "group_label",
    "moment_text",
    "object_name",
    "type_label",
    "with_names",
]
