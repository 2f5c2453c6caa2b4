"""Calculator results in words, step by step as the rulebook writes them (4−3−8)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cardpool.models import Gender

from . import calculator
from .calculator import Effect, Outcome, State, Step
from .forms import CARD_TYPE_CHOICES, SOURCE_KIND_LABELS, STEP_LABELS

_TYPE_LABELS = dict(CARD_TYPE_CHOICES)
_GENDER_LABELS = dict(Gender.choices)


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{-value}"


def describe_effect(effect: Effect) -> str:
    if effect.step == Step.IMMUNITY:
        kinds = ", ".join(str(SOURCE_KIND_LABELS[kind.value]) for kind in sorted(effect.immune_to))
        return _("unaffected by %(kinds)s") % {"kinds": kinds}
    if effect.step == Step.TYPE:
        parts = []
        if effect.card_type:
            parts.append(str(_TYPE_LABELS.get(effect.card_type, effect.card_type)))
        if effect.gender:
            parts.append(str(_GENDER_LABELS.get(effect.gender, effect.gender)))
        return _("becomes %(what)s") % {"what": " · ".join(parts)}
    if effect.step == Step.ABILITIES:
        parts = []
        if effect.lose_all_abilities:
            parts.append(_("loses all abilities"))
        parts += [_("loses “%(ability)s”") % {"ability": a} for a in effect.lose_abilities]
        parts += [_("gains “%(ability)s”") % {"ability": a} for a in effect.gain_abilities]
        return "; ".join(parts)
    if effect.step == Step.SET_VALUES:
        ap = "·" if effect.ap is None else effect.ap
        dp = "·" if effect.dp is None else effect.dp
        return _("AP:DP becomes %(ap)s:%(dp)s") % {"ap": ap, "dp": dp}
    if effect.step == Step.MODIFY_VALUES:
        return f"{signed(effect.ap or 0)}:{signed(effect.dp or 0)}"
    return _("swaps AP and DP")


def describe_state(state: State) -> str:
    kind = str(_TYPE_LABELS.get(state.card_type, state.card_type))
    if state.gender:
        kind = f"{kind} ({_GENDER_LABELS.get(state.gender, state.gender)})"
    abilities = "; ".join(f"“{ability}”" for ability in state.abilities) or _("none")
    return _("%(kind)s, AP:DP %(ap)s:%(dp)s, abilities: %(abilities)s") % {
        "kind": kind,
        "ap": state.ap,
        "dp": state.dp,
        "abilities": abilities,
    }


def describe_outcome(outcome: Outcome) -> dict:
    """The page's view of an outcome: each step with what applied, what was invalidated
    and by which immunity, and the state after it; then the result."""
    steps = []
    for report in outcome.steps:
        lines = [
            {
                "source": effect.source,
                "kind": SOURCE_KIND_LABELS[effect.source_kind.value],
                "text": describe_effect(effect),
                "blocked_by": blocker.source if blocker else "",
            }
            for effect, blocker in report.entries
        ]
        total = None
        if report.total_modifier is not None and report.applied:
            total = f"{signed(report.total_modifier[0])}:{signed(report.total_modifier[1])}"
        steps.append(
            {
                "label": STEP_LABELS[report.step.value],
                "lines": lines,
                "total": total,
                "state": describe_state(report.state),
            }
        )
    if outcome.crash_reason == "dp":
        crash = _("It crashes: its DP is %(dp)s (rule 4−3−9).") % {"dp": outcome.final.dp}
    elif outcome.crash_reason == "damage":
        crash = ngettext(
            "It crashes: %(damage)s damage is at least its DP %(dp)s (rule 4−3−9).",
            "It crashes: %(damage)s damage is at least its DP %(dp)s (rule 4−3−9).",
            outcome.damage,
        ) % {"damage": outcome.damage, "dp": outcome.final.dp}
    elif outcome.final.card_type == calculator.CHARACTER:
        crash = _("It does not crash: %(damage)s damage, DP %(dp)s.") % {
            "damage": outcome.damage,
            "dp": outcome.final.dp,
        }
    else:
        crash = ""
    notes = []
    if calculator.ABILITY_ORDER_MATTERS in outcome.notes:
        notes.append(
            _(
                "The controller chooses the order of step 3, and another order ends "
                "differently; possible abilities:"
            )
        )
    if calculator.IMMUNITY_VERSUS_IMMUNITY in outcome.notes:
        notes.append(
            _(
                "One immunity would invalidate another; the rulebook does not settle this, "
                "so all immunities were applied. Judge’s call."
            )
        )
    return {
        "printed": describe_state(outcome.printed),
        "steps": steps,
        "result": describe_state(outcome.final),
        "alternatives": [
            "; ".join(f"“{ability}”" for ability in abilities) or _("no abilities")
            for abilities in outcome.ability_outcomes
        ]
        if calculator.ABILITY_ORDER_MATTERS in outcome.notes
        else [],
        "crash": crash,
        "crashed": outcome.crashed,
        "notes": notes,
    }
