"""Rule 4−3−8 / 4−3−9 calculator: the rulebook's worked examples and the order rules."""

import pytest

from rules.calculator import (
    ABILITY_ORDER_MATTERS,
    CHARACTER,
    IMMUNITY_VERSUS_IMMUNITY,
    NAVIGATOR,
    CalculatorError,
    Effect,
    SourceKind,
    State,
    Step,
    resolve,
)
from rules.calculator_examples import EXAMPLES, GUN_ABILITY, SHIBASAKI, SHIBASAKI_ABILITIES, longji


def run(slug, **changes):
    example = EXAMPLES[slug]
    return resolve(example.printed, example.effects, example.damage)


def test_example_1_shibasaki_ends_as_an_other_character_with_5_5():
    outcome = run("4-3-8-example-1")
    assert (outcome.final.card_type, outcome.final.gender) == (CHARACTER, "Other")
    assert (outcome.final.ap, outcome.final.dp) == (5, 5)
    # The controller chooses the order of step 3: no abilities at all, or only GUN's.
    assert set(outcome.ability_outcomes) == {(), (GUN_ABILITY,)}
    assert outcome.final.abilities == (GUN_ABILITY,)  # in the order listed
    assert ABILITY_ORDER_MATTERS in outcome.notes
    assert not outcome.crashed


def test_example_1_steps_follow_the_rulebook():
    steps = run("4-3-8-example-1").steps
    assert [report.step for report in steps] == list(Step)
    assert steps[0].applied == ()  # 1) nothing invalidated
    assert (steps[1].state.card_type, steps[1].state.gender) == (CHARACTER, "Other")
    assert (steps[3].state.ap, steps[3].state.dp) == (0, 5)  # 4) set to 0:5
    assert steps[4].total_modifier == (5, 0)  # 5) +1+2+2 : +1+0−1, at once
    assert steps[5].applied == ()  # 6) nothing special
    assert all(report.blocked == () for report in steps)


@pytest.mark.parametrize("longji_kind", [SourceKind.SPELL, SourceKind.ITEM])
def test_example_2_shibasaki_stays_a_male_character_with_4_6(longji_kind):
    example = EXAMPLES["4-3-8-example-2"]
    effects = [longji(longji_kind), *example.effects[1:]]
    outcome = resolve(example.printed, effects)
    assert (outcome.final.card_type, outcome.final.gender) == (CHARACTER, "Male")
    assert outcome.final.abilities == (SHIBASAKI_ABILITIES, GUN_ABILITY)
    assert (outcome.final.ap, outcome.final.dp) == (4, 6)
    assert outcome.ability_outcomes == ((SHIBASAKI_ABILITIES, GUN_ABILITY),)
    steps = outcome.steps
    blocked = {
        (report.step, b.effect.source, b.by.source) for report in steps for b in report.blocked
    }
    assert blocked == {
        (Step.TYPE, "剣を捨てて……", "ロンジー"),
        (Step.ABILITIES, "剣を捨てて……", "ロンジー"),
        (Step.SET_VALUES, "剣を捨てて……", "ロンジー"),
        (Step.MODIFY_VALUES, "魔界", "ロンジー"),
    }
    assert steps[4].total_modifier == (2, 0)
    assert (steps[4].state.ap, steps[4].state.dp) == (6, 4)  # then swapped by 藤島綾香
    assert [effect.source for effect in steps[5].applied] == ["藤島綾香"]


def test_immunity_does_not_apply_to_its_own_source():
    # 4−3−8−1: a spell's "unaffected by spells" does not cancel the spell itself.
    effects = [
        Effect("秘密基地", SourceKind.ITEM, Step.IMMUNITY, immune_to=frozenset({SourceKind.ITEM})),
        Effect("秘密基地", SourceKind.ITEM, Step.MODIFY_VALUES, ap=1, dp=1),
        Effect("剣", SourceKind.ITEM, Step.MODIFY_VALUES, ap=5, dp=5),
    ]
    outcome = resolve(SHIBASAKI, effects)
    assert (outcome.final.ap, outcome.final.dp) == (5, 5)
    assert [b.effect.source for b in outcome.steps[4].blocked] == ["剣"]


def test_two_immunities_covering_each_other_are_noted():
    effects = [
        Effect("A", SourceKind.SPELL, Step.IMMUNITY, immune_to=frozenset({SourceKind.EVENT})),
        Effect("B", SourceKind.EVENT, Step.IMMUNITY, immune_to=frozenset({SourceKind.SPELL})),
    ]
    assert resolve(SHIBASAKI, effects).notes == (IMMUNITY_VERSUS_IMMUNITY,)


def test_damage_and_dp_rules_of_4_3_9():
    example = EXAMPLES["4-3-9-example"]
    yamana = [
        Effect("山名春恵", SourceKind.CHARACTER, Step.MODIFY_VALUES, ap=0, dp=1),
        Effect("山名春恵 (2)", SourceKind.CHARACTER, Step.MODIFY_VALUES, ap=0, dp=1),
    ]
    with_yamana = resolve(example.printed, yamana, damage=example.damage)
    assert (with_yamana.final.ap, with_yamana.final.dp) == (2, 4)
    assert not with_yamana.crashed  # 3 damage, DP 4
    # Both 〔山名春恵〕 crash from the same 〔駆逐〕: DP back to 2 with 3 damage kept.
    without = resolve(example.printed, [], damage=example.damage)
    assert without.crashed
    assert without.crash_reason == "damage"


def test_dp_lowered_to_zero_crashes_without_damage():
    effects = [Effect("魔界", SourceKind.EVENT, Step.MODIFY_VALUES, ap=2, dp=-4)]
    outcome = resolve(SHIBASAKI, effects, damage=0)
    assert outcome.crashed
    assert outcome.crash_reason == "dp"  # a minus modifier is not damage


def test_damage_below_dp_does_not_crash_and_exact_dp_does():
    assert not resolve(SHIBASAKI, [], damage=3).crashed
    assert resolve(SHIBASAKI, [], damage=4).crash_reason == "damage"


def test_set_values_then_modify_then_swap_in_order():
    effects = [
        Effect("x", SourceKind.CHARACTER, Step.SPECIAL, swap_ap_dp=True),
        Effect("y", SourceKind.SPELL, Step.MODIFY_VALUES, ap=1, dp=0),
        Effect("z", SourceKind.SPELL, Step.SET_VALUES, ap=0, dp=5),
    ]
    outcome = resolve(SHIBASAKI, effects)
    assert (outcome.final.ap, outcome.final.dp) == (5, 1)  # 0:5 → 1:5 → 5:1


def test_becoming_a_navigator_drops_the_gender_and_never_crashes():
    effects = [Effect("x", SourceKind.SPELL, Step.TYPE, card_type=NAVIGATOR)]
    outcome = resolve(SHIBASAKI, effects, damage=10)
    assert (outcome.final.card_type, outcome.final.gender) == (NAVIGATOR, None)
    assert not outcome.crashed


def test_an_effect_that_changes_nothing_is_refused():
    with pytest.raises(CalculatorError, match="changes nothing"):
        Effect("x", SourceKind.SPELL, Step.SET_VALUES)


def test_negative_damage_is_refused():
    with pytest.raises(CalculatorError, match="damage"):
        resolve(SHIBASAKI, [], damage=-1)


def test_printed_state_is_kept_in_the_outcome():
    printed = State(card_type=CHARACTER, gender="Female", abilities=("a",), ap=1, dp=1)
    assert resolve(printed, []).printed == printed
