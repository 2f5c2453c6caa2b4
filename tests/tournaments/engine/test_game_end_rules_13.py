"""How each game's games end, from the shipped data (``cardpool/builtin_games.json``) into
the engine (``GameEndRules``). Each test names the seed section it enforces, or says the
rule is the project's assumption where the seed is silent (issue #13, "Other games")."""

import dataclasses
import json
import re
from pathlib import Path

import pytest

from tournaments.engine.errors import InvalidGameReport
from tournaments.engine.games import (
    CROSSOVER_END_RULES,
    DeckOut,
    GameEnd,
    GameEndRules,
    GameOutcome,
    GameReport,
    TimeoutPolicy,
    TimeTiebreak,
    adjudicate_game,
    adjudicate_match,
)

BUILTIN = Path(__file__).resolve().parents[3] / "cardpool" / "builtin_games.json"
P1, P2, DRAW, UNDECIDED = (
    GameOutcome.PLAYER1,
    GameOutcome.PLAYER2,
    GameOutcome.DRAW,
    GameOutcome.UNDECIDED,
)


def shipped_rules(slug: str) -> GameEndRules:
    """The rules the site builds for a built-in game (as ``Game.end_rules_data`` does)."""
    games = json.loads(BUILTIN.read_text(encoding="utf-8"))["games"]
    spec = next(game for game in games if game["slug"] == slug)
    return GameEndRules(game=spec["name"], **spec["end_rules"])


CROSSOVER = shipped_rules("crossover")
MONSTER_COLLECTION = shipped_rules("monster-collection")
CROSS_UNIVERSE = shipped_rules("cross-universe")
ASURA_SYSTEM = shipped_rules("asura-system")


def refused(report: GameReport, rules: GameEndRules, code: str, **kwargs) -> str:
    with pytest.raises(InvalidGameReport) as caught:
        adjudicate_game(report, rules=rules, **kwargs)
    assert caught.value.code == code
    return caught.value.message


# -- CrossOver: rulebook 1−4 (HP 1 to 30), 4−1−2, wiki 002 -----------------------------------


def test_crossover_shipped_rules_are_the_engine_defaults():
    assert dataclasses.replace(CROSSOVER_END_RULES, sources=CROSSOVER.sources) == CROSSOVER
    assert (CROSSOVER.hp_tracked, CROSSOVER.max_hp, CROSSOVER.hp_zero_loses) == (True, 30, True)
    assert CROSSOVER.deck_out is DeckOut.EMPTY
    assert CROSSOVER.time_tiebreak is TimeTiebreak.MORE_HP
    assert CROSSOVER.endings == set(GameEnd)


def test_crossover_hp_31_refused_citing_rule_1_4():
    # 1−4: an HP counter counts 1 to 30; wiki 002: the maximum HP is 30.
    message = refused(GameReport(GameEnd.HP_ZERO, hp=(31, 0)), CROSSOVER, "hp_above_maximum")
    assert message == (
        "player 1: HP 31 is above the maximum 30 (CrossOver The F&C TCG: Basic Rules v2.02 "
        "1−4 (an HP counter counts 1 to 30); wiki summary 002 (starting and maximum HP 30))"
    )


def test_crossover_hp_30_accepted_rule_1_4():
    assert adjudicate_game(GameReport(GameEnd.HP_ZERO, hp=(30, 0)), rules=CROSSOVER) is P1


def test_crossover_default_rules_still_refuse_hp_31():
    # Callers that pass no rules get CrossOver's (the engine's defaults).
    refused(GameReport(GameEnd.HP_ZERO, hp=(0, 31)), CROSSOVER_END_RULES, "hp_above_maximum")
    with pytest.raises(InvalidGameReport):
        adjudicate_game(GameReport(GameEnd.HP_ZERO, hp=(0, 31)))


def test_crossover_winner_with_empty_deck_is_simultaneous_rule_4_1_2():
    report = GameReport(GameEnd.HP_ZERO, hp=(12, 0), deck=(0, 9))
    refused(report, CROSSOVER, "winner_deck_empty")


# -- Monster Collection: seed 001 -------------------------------------------------------------


def test_monster_collection_has_no_hp_assumption_seed_001_silent():
    # Seed 001 (rules supplement, TRB2002 excerpts) mentions no HP: assumption, no HP.
    assert MONSTER_COLLECTION.hp_tracked is False
    assert MONSTER_COLLECTION.max_hp is None
    assert MONSTER_COLLECTION.sources["hp"].startswith("assumption:")


def test_monster_collection_hp_is_refused_as_not_tracked():
    report = GameReport(GameEnd.TIME, hp=(45, 3))
    message = refused(report, MONSTER_COLLECTION, "hp_not_tracked")
    assert message.startswith("player 1: HP 45, but players have no HP in this game")
    assert "(Monster Collection TCG: assumption: seed 001" in message


def test_monster_collection_deck_out_is_no_ending_seed_001_1_1_5_2():
    # 第2部 1-1-5-2: drawing more cards than the deck holds draws what is left.
    assert MONSTER_COLLECTION.deck_out is DeckOut.NONE
    assert "1-1-5-2" in MONSTER_COLLECTION.sources["deck_out"]
    message = refused(
        GameReport(GameEnd.DECK_EMPTY, deck=(0, 5)), MONSTER_COLLECTION, "end_not_in_game"
    )
    assert "1-1-5-2" in message


@pytest.mark.parametrize("end", [GameEnd.HP_ZERO, GameEnd.SIMULTANEOUS])
def test_monster_collection_refuses_endings_it_does_not_have(end):
    refused(GameReport(end, hp=(None, None)), MONSTER_COLLECTION, "end_not_in_game")


def test_monster_collection_tournament_endings_remain():
    assert MONSTER_COLLECTION.endings == {GameEnd.TIME, GameEnd.CONCESSION, GameEnd.PENALTY}
    assert adjudicate_game(GameReport(GameEnd.TIME), rules=MONSTER_COLLECTION) is DRAW
    conceded = GameReport(GameEnd.CONCESSION, conceded=(False, True))
    assert adjudicate_game(conceded, rules=MONSTER_COLLECTION) is P1


def test_monster_collection_time_out_needing_a_winner_goes_to_a_judge():
    # Assumption: seed 001 gives no time-out rule; the engine never invents a winner.
    report = GameReport(GameEnd.TIME)
    outcome = adjudicate_game(
        report, rules=MONSTER_COLLECTION, timeout_policy=TimeoutPolicy.MORE_HP_WINS
    )
    assert outcome is UNDECIDED


# -- Cross Universe: seed 003 -----------------------------------------------------------------


def test_cross_universe_life_points_have_no_upper_limit_seed_003():
    # 処理におけるその他の事項 / ライフポイント変動の下限: no upper limit, lower limit 0.
    assert CROSS_UNIVERSE.hp_tracked is True
    assert CROSS_UNIVERSE.max_hp is None
    report = GameReport(GameEnd.HP_ZERO, hp=(45, 0))
    assert adjudicate_game(report, rules=CROSS_UNIVERSE) is P1
    assert adjudicate_game(GameReport(GameEnd.HP_ZERO, hp=(0, 8000)), rules=CROSS_UNIVERSE) is P2


def test_cross_universe_life_points_stop_at_zero_seed_003():
    refused(GameReport(GameEnd.HP_ZERO, hp=(-1, 5)), CROSS_UNIVERSE, "hp_negative")


def test_cross_universe_deck_at_zero_is_not_yet_a_loss_seed_003_example_3():
    # 空打ちの禁止 例3: play goes on with a deck at 0; the loss comes with a due draw
    # (assumption), so the winner of an HP ending may have an empty deck.
    assert CROSS_UNIVERSE.deck_out is DeckOut.DRAW
    report = GameReport(GameEnd.HP_ZERO, hp=(12, 0), deck=(0, 9))
    assert adjudicate_game(report, rules=CROSS_UNIVERSE) is P1
    # A time-out with a deck at 0: the game had not ended.
    assert adjudicate_game(GameReport(GameEnd.TIME, deck=(0, 3)), rules=CROSS_UNIVERSE) is DRAW


def test_cross_universe_deck_out_loser_is_the_one_at_zero():
    report = GameReport(GameEnd.DECK_EMPTY, deck=(4, 0), hp=(10, 10))
    assert adjudicate_game(report, rules=CROSS_UNIVERSE) is P1


def test_cross_universe_both_decks_at_zero_cannot_say_who_drew():
    report = GameReport(GameEnd.DECK_EMPTY, deck=(0, 0), hp=(10, 10))
    message = refused(report, CROSS_UNIVERSE, "deck_out_unclear")
    assert "enter the match as a record" in message


def test_cross_universe_time_out_has_no_tiebreak_assumption():
    report = GameReport(GameEnd.TIME, hp=(20, 5))
    outcome = adjudicate_game(
        report, rules=CROSS_UNIVERSE, timeout_policy=TimeoutPolicy.MORE_HP_WINS
    )
    assert outcome is UNDECIDED
    assert CROSS_UNIVERSE.sources["time_tiebreak"].startswith("assumption:")


# -- AsuraSystem: seed 004 --------------------------------------------------------------------


def test_asura_system_has_no_hp_seed_004_2_5():
    # 2−5 (4): damage is cards in the damage pile, the deck is the character's stamina.
    assert ASURA_SYSTEM.hp_tracked is False
    assert "2−5 (4)" in ASURA_SYSTEM.sources["hp"]
    refused(GameReport(GameEnd.TIME, hp=(31, 2)), ASURA_SYSTEM, "hp_not_tracked")
    refused(GameReport(GameEnd.HP_ZERO, hp=(0, 2)), ASURA_SYSTEM, "end_not_in_game")


def test_asura_system_empty_stamina_loses_assumption_2_3_is_empty():
    # 2−3 (win conditions) is an empty heading in seed 004: the deck-out rule is assumed.
    assert ASURA_SYSTEM.deck_out is DeckOut.EMPTY
    assert ASURA_SYSTEM.sources["deck_out"].startswith("assumption:")
    assert "2−3" in ASURA_SYSTEM.sources["deck_out"]
    assert adjudicate_game(GameReport(GameEnd.DECK_EMPTY, deck=(0, 12)), rules=ASURA_SYSTEM) is P2
    both = GameReport(GameEnd.SIMULTANEOUS, deck=(0, 0))
    assert adjudicate_game(both, rules=ASURA_SYSTEM) is DRAW


def test_asura_system_match_of_deck_outs():
    reports = [
        GameReport(GameEnd.DECK_EMPTY, deck=(0, 12)),
        GameReport(GameEnd.DECK_EMPTY, deck=(3, 0)),
        GameReport(GameEnd.CONCESSION, conceded=(False, True)),
    ]
    record = adjudicate_match(reports, rules=ASURA_SYSTEM)
    assert str(record) == "2-1-0"


def test_a_refused_game_in_a_match_names_the_game():
    reports = [GameReport(GameEnd.TIME), GameReport(GameEnd.TIME, hp=(3, 3))]
    with pytest.raises(InvalidGameReport) as caught:
        adjudicate_match(reports, rules=MONSTER_COLLECTION)
    assert caught.value.code == "hp_not_tracked"
    assert caught.value.message.startswith("game 2: player 1: HP 3")


# -- the rules value itself -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hp_tracked": False}, "a maximum HP needs HP"),
        ({"hp_tracked": False, "max_hp": None}, "'HP 0 loses' needs HP"),
        (
            {"hp_tracked": False, "max_hp": None, "hp_zero_loses": False},
            "'more HP wins' at time-out needs HP",
        ),
        ({"max_hp": 0}, "maximum HP must be a whole number ≥ 1 or None"),
        ({"sources": {"life": "x"}}, "unknown source keys ['life']"),
    ],
)
def test_contradictory_rules_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(f"Test: {message}")):
        GameEndRules(game="Test", **kwargs)


def test_unknown_deck_out_value_is_refused():
    with pytest.raises(ValueError, match="'sometimes' is not a valid DeckOut"):
        GameEndRules(deck_out="sometimes")
