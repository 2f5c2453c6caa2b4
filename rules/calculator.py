"""The judge calculator: several effects on one card, in the rulebook's order (plain Python).

CrossOver Basic Rules v2.02, 4−3−8: when several effects apply to one card they are
applied in six steps, each step seeing the result of the one before:

1. immunity — what is invalidated ("unaffected by …", "… is invalid");
2. type — navigator, character…, and for a character its gender;
3. abilities — gaining abilities, losing (all) abilities; the card's controller chooses
   the order, so different orders may end differently;
4. set values — "has AP:DP 0:5";
5. modify values — every "+x:+y" summed and applied at once;
6. special — such as swapping AP and DP.

4−3−8−1: an immunity does not apply to itself nor to the effect that gave it (here: to
effects from the same source card). The rulebook does not say how two immunities treat
each other; all immunities apply, and :attr:`Outcome.notes` says when that matters.

4−3−9: a character crashes when its accumulated damage reaches its DP, or when its DP
becomes 0 (or less) through modifications; lowering DP is not damage.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum


class SourceKind(StrEnum):
    EVENT = "event"
    SPELL = "spell"
    ITEM = "item"
    CHARACTER = "character"
    NAVIGATOR = "navigator"


class Step(IntEnum):
    IMMUNITY = 1
    TYPE = 2
    ABILITIES = 3
    SET_VALUES = 4
    MODIFY_VALUES = 5
    SPECIAL = 6


CHARACTER = "character"
NAVIGATOR = "navigator"

# Notes on an outcome (worded by the page).
IMMUNITY_VERSUS_IMMUNITY = "immunity_versus_immunity"
ABILITY_ORDER_MATTERS = "ability_order_matters"

# Beyond this many ability effects only the given order is tried (8! = 40,320 orders).
_MAX_ORDERED_ABILITY_EFFECTS = 7


class CalculatorError(ValueError):
    """An effect that says nothing for its step."""


@dataclass(frozen=True)
class State:
    card_type: str
    gender: str | None
    abilities: tuple[str, ...]
    ap: int
    dp: int


@dataclass(frozen=True)
class Effect:
    """One instruction of one source card, belonging to one step.

    A card such as 〔剣を捨てて……〕 gives several effects (type, abilities, values).
    ``ap``/``dp`` are the values to set in :attr:`Step.SET_VALUES` and the modifiers in
    :attr:`Step.MODIFY_VALUES`.
    """

    source: str
    source_kind: SourceKind
    step: Step
    immune_to: frozenset[SourceKind] = frozenset()
    card_type: str | None = None
    gender: str | None = None
    lose_all_abilities: bool = False
    gain_abilities: tuple[str, ...] = ()
    lose_abilities: tuple[str, ...] = ()
    ap: int | None = None
    dp: int | None = None
    swap_ap_dp: bool = False

    def __post_init__(self):
        says_something = {
            Step.IMMUNITY: bool(self.immune_to),
            Step.TYPE: self.card_type is not None or self.gender is not None,
            Step.ABILITIES: self.lose_all_abilities
            or bool(self.gain_abilities)
            or bool(self.lose_abilities),
            Step.SET_VALUES: self.ap is not None or self.dp is not None,
            Step.MODIFY_VALUES: self.ap is not None or self.dp is not None,
            Step.SPECIAL: self.swap_ap_dp,
        }[self.step]
        if not says_something:
            raise CalculatorError(f"the {self.step.name} effect of {self.source} changes nothing")


@dataclass(frozen=True)
class Blocked:
    effect: Effect
    by: Effect  # the immunity that invalidates it


@dataclass(frozen=True)
class StepReport:
    step: Step
    # The step's effects in the order given, each with the immunity that invalidates it
    # (None when it applies).
    entries: tuple[tuple[Effect, Effect | None], ...]
    state: State  # after this step
    # Step 5 only: the summed modifier (AP, DP) applied at once.
    total_modifier: tuple[int, int] | None = None

    @property
    def applied(self) -> tuple[Effect, ...]:
        return tuple(effect for effect, blocker in self.entries if blocker is None)

    @property
    def blocked(self) -> tuple[Blocked, ...]:
        return tuple(Blocked(effect, by) for effect, by in self.entries if by is not None)


@dataclass(frozen=True)
class Outcome:
    printed: State
    steps: tuple[StepReport, ...]
    final: State
    # Every set of abilities some order of step 3 could end with (the given order's first).
    ability_outcomes: tuple[tuple[str, ...], ...]
    damage: int
    crashed: bool
    crash_reason: str | None  # "damage", "dp" (DP 0 or less) or None
    notes: tuple[str, ...] = field(default=())


def resolve(printed: State, effects: Sequence[Effect], damage: int = 0) -> Outcome:
    """Apply ``effects`` to a card with the ``printed`` state in the order of rule 4−3−8
    and decide whether ``damage`` crashes it (4−3−9). Effects of one step apply in the
    order given (for step 3, the order the controller chose)."""
    if damage < 0:
        raise CalculatorError("damage cannot be negative")
    immunities = [effect for effect in effects if effect.step == Step.IMMUNITY]
    notes: list[str] = []
    if any(_blocker(effect, immunities) for effect in immunities):
        notes.append(IMMUNITY_VERSUS_IMMUNITY)

    state = printed
    reports = [StepReport(Step.IMMUNITY, tuple((effect, None) for effect in immunities), state)]
    ability_outcomes: tuple[tuple[str, ...], ...] = (printed.abilities,)
    for step in list(Step)[1:]:
        entries = tuple(
            (effect, _blocker(effect, immunities)) for effect in effects if effect.step == step
        )
        applied = [effect for effect, blocker in entries if blocker is None]
        total = None
        if step == Step.TYPE:
            for effect in applied:
                state = _change_type(state, effect)
        elif step == Step.ABILITIES:
            ability_outcomes = _ability_outcomes(state.abilities, applied)
            state = replace(state, abilities=ability_outcomes[0])
            if len(ability_outcomes) > 1:
                notes.append(ABILITY_ORDER_MATTERS)
        elif step == Step.SET_VALUES:
            for effect in applied:
                state = replace(
                    state,
                    ap=state.ap if effect.ap is None else effect.ap,
                    dp=state.dp if effect.dp is None else effect.dp,
                )
        elif step == Step.MODIFY_VALUES:
            total = (
                sum(effect.ap or 0 for effect in applied),
                sum(effect.dp or 0 for effect in applied),
            )
            state = replace(state, ap=state.ap + total[0], dp=state.dp + total[1])
        else:
            for _effect in applied:
                state = replace(state, ap=state.dp, dp=state.ap)
        reports.append(StepReport(step, entries, state, total))

    crash_reason = None
    if state.card_type == CHARACTER:
        if state.dp <= 0:
            crash_reason = "dp"
        elif damage >= state.dp:
            crash_reason = "damage"
    return Outcome(
        printed=printed,
        steps=tuple(reports),
        final=state,
        ability_outcomes=ability_outcomes,
        damage=damage,
        crashed=crash_reason is not None,
        crash_reason=crash_reason,
        notes=tuple(notes),
    )


def _blocker(effect: Effect, immunities: Iterable[Effect]) -> Effect | None:
    for immunity in immunities:
        # 4−3−8−1: not to itself, nor to the effect (here: the card) that gave it.
        if immunity is effect or immunity.source == effect.source:
            continue
        if effect.source_kind in immunity.immune_to:
            return immunity
    return None


def _change_type(state: State, effect: Effect) -> State:
    card_type = effect.card_type or state.card_type
    gender = effect.gender if effect.gender is not None else state.gender
    if card_type != CHARACTER and effect.gender is None:
        gender = None  # only characters have a gender (4−3−8, step 2)
    return replace(state, card_type=card_type, gender=gender)


def _apply_abilities(abilities: tuple[str, ...], effects: Iterable[Effect]) -> tuple[str, ...]:
    current = list(abilities)
    for effect in effects:
        if effect.lose_all_abilities:
            current = []
        current = [ability for ability in current if ability not in effect.lose_abilities]
        current += [ability for ability in effect.gain_abilities if ability not in current]
    return tuple(current)


def _ability_outcomes(
    abilities: tuple[str, ...], effects: list[Effect]
) -> tuple[tuple[str, ...], ...]:
    outcomes = [_apply_abilities(abilities, effects)]
    if len(effects) <= _MAX_ORDERED_ABILITY_EFFECTS:
        for order in itertools.permutations(effects):
            result = _apply_abilities(abilities, order)
            if result not in outcomes:
                outcomes.append(result)
    return tuple(outcomes)
