"""The worked examples of rulebook 4−3−8 and 4−3−9 as calculator input (plain Python).

Card names are the rulebook's; effects are summarised, not quoted. 〔柴崎拓也〕's printed
AP:DP is not printed in the rulebook but follows from example 2 (after "+2:+0" it is
"6:4", so it is 4:4). Where the rulebook does not say what kind of card a source is
(〔ファイナルうさパンチ〕, 〔ロンジー〕, 〔GUN〕 beyond "not an event") the choice below does
not change the result; the tests check that for 〔ロンジー〕.
"""

from __future__ import annotations

from dataclasses import dataclass

from .calculator import CHARACTER, Effect, SourceKind, State, Step

SHIBASAKI_ABILITIES = "〔柴崎拓也〕の特殊能力"
GUN_ABILITY = "「飛行」を持つキャラクターをディフェンスできる"


@dataclass(frozen=True)
class Example:
    slug: str
    name: str  # the card the effects apply to
    section: str  # where the rulebook works it through, and which example
    printed: State
    effects: tuple[Effect, ...]
    damage: int = 0


SHIBASAKI = State(card_type=CHARACTER, gender="Male", abilities=(SHIBASAKI_ABILITIES,), ap=4, dp=4)

_SWORD = "剣を捨てて……"
_SWORD_EFFECTS = (
    Effect(_SWORD, SourceKind.EVENT, Step.TYPE, card_type=CHARACTER, gender="Other"),
    Effect(_SWORD, SourceKind.EVENT, Step.ABILITIES, lose_all_abilities=True),
)
_GUN_ABILITY = Effect("GUN", SourceKind.ITEM, Step.ABILITIES, gain_abilities=(GUN_ABILITY,))
_SWORD_VALUES = Effect(_SWORD, SourceKind.EVENT, Step.SET_VALUES, ap=0, dp=5)
_GUN_MODIFIER = Effect("GUN", SourceKind.ITEM, Step.MODIFY_VALUES, ap=2, dp=0)
_MAKAI_MODIFIER = Effect("魔界", SourceKind.EVENT, Step.MODIFY_VALUES, ap=2, dp=-1)


def longji(kind: SourceKind = SourceKind.SPELL) -> Effect:
    """〔ロンジー〕: the character is unaffected by spells and events."""
    return Effect(
        "ロンジー",
        kind,
        Step.IMMUNITY,
        immune_to=frozenset({SourceKind.SPELL, SourceKind.EVENT}),
    )


EXAMPLES = {
    example.slug: example
    for example in (
        Example(
            slug="4-3-8-example-1",
            name="柴崎拓也",
            section="4−3−8 (1)",
            printed=SHIBASAKI,
            effects=(
                *_SWORD_EFFECTS,
                _GUN_ABILITY,
                _SWORD_VALUES,
                Effect("ファイナルうさパンチ", SourceKind.ITEM, Step.MODIFY_VALUES, ap=1, dp=1),
                _GUN_MODIFIER,
                _MAKAI_MODIFIER,
            ),
        ),
        Example(
            slug="4-3-8-example-2",
            name="柴崎拓也",
            section="4−3−8 (2)",
            printed=SHIBASAKI,
            effects=(
                longji(),
                *_SWORD_EFFECTS,
                _GUN_ABILITY,
                _SWORD_VALUES,
                _GUN_MODIFIER,
                _MAKAI_MODIFIER,
                Effect("藤島綾香", SourceKind.CHARACTER, Step.SPECIAL, swap_ap_dp=True),
            ),
        ),
        Example(
            # 〔萌木玉緒〕 (2:2) with two 〔山名春恵〕 on the field (+0:+1 each) has taken 3
            # damage from 〔駆逐〕; the 〔山名春恵〕 crash, so their modifiers end.
            slug="4-3-9-example",
            name="萌木玉緒",
            section="4−3−9",
            printed=State(card_type=CHARACTER, gender="Female", abilities=(), ap=2, dp=2),
            effects=(),
            damage=3,
        ),
    )
}
