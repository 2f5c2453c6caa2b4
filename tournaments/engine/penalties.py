"""The penalty a judge is offered for an infraction: its default penalty, upgraded for a
repeat in the same event when the infraction's rule says so.

Plain data in, plain data out (no database): ``tournaments.infractions`` turns the models
into these dataclasses and words the reason in the reader's language.

Rules (tournament practice, the IPG's "upgrade for a repeat"; the games' own rules name
no ladder):

* The penalties form a ladder: warning < game loss < match loss < disqualification.
* Earlier penalties counted are the player's penalties in the same event for the same
  infraction (``scope="infraction"``) or for any infraction of the same category
  (``scope="category"``). Penalties without an infraction from the list are not counted.
* ``upgrade="none"``: the default penalty, however many earlier ones.
* ``upgrade="step"``: one step up the ladder for each earlier offence, but counting alone
  never reaches a disqualification (that stays the judge's decision): it stops at match
  loss unless the default already is a disqualification.
* ``upgrade="to"``: from the first repeat on, ``upgrade_to`` (never lower than the
  default).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    WARNING = "warning"
    GAME_LOSS = "game_loss"
    MATCH_LOSS = "match_loss"
    DISQUALIFICATION = "disqualification"


LADDER = (Kind.WARNING, Kind.GAME_LOSS, Kind.MATCH_LOSS, Kind.DISQUALIFICATION)
STEP_CEILING = Kind.MATCH_LOSS


class Upgrade(StrEnum):
    NONE = "none"
    STEP = "step"
    TO = "to"


class Scope(StrEnum):
    INFRACTION = "infraction"
    CATEGORY = "category"


@dataclass(frozen=True)
class InfractionRule:
    code: str
    category: str
    default: Kind
    upgrade: Upgrade = Upgrade.NONE
    upgrade_to: Kind | None = None
    scope: Scope = Scope.INFRACTION


@dataclass(frozen=True)
class EarlierPenalty:
    """One of the player's earlier penalties in the event."""

    infraction_code: str | None
    category: str | None
    kind: Kind


@dataclass(frozen=True)
class Suggestion:
    kind: Kind  # the penalty suggested
    default: Kind  # the infraction's default penalty
    repeat: int  # 1 for a first offence, 2 for the second counted one, ...
    scope: Scope

    @property
    def upgraded(self) -> bool:
        return self.kind != self.default


def rank(kind: Kind | str) -> int:
    return LADDER.index(Kind(kind))


def counted(rule: InfractionRule, earlier: Iterable[EarlierPenalty]) -> int:
    """How many of the earlier penalties are repeats of this rule's infraction."""
    if rule.scope == Scope.CATEGORY:
        return sum(
            1 for p in earlier if p.infraction_code is not None and p.category == rule.category
        )
    return sum(1 for p in earlier if p.infraction_code == rule.code)


def suggest_penalty(rule: InfractionRule, earlier: Iterable[EarlierPenalty]) -> Suggestion:
    """The penalty to offer for ``rule`` given the player's earlier penalties in the event."""
    default = Kind(rule.default)
    repeats = counted(rule, earlier)
    kind = default
    if repeats and rule.upgrade == Upgrade.STEP:
        ceiling = max(rank(default), rank(STEP_CEILING))
        kind = LADDER[min(rank(default) + repeats, ceiling)]
    elif repeats and rule.upgrade == Upgrade.TO:
        if rule.upgrade_to is None:
            raise ValueError(f"infraction {rule.code!r}: upgrade 'to' names no penalty")
        kind = max(default, Kind(rule.upgrade_to), key=rank)
    return Suggestion(kind=kind, default=default, repeat=repeats + 1, scope=Scope(rule.scope))
