"""An independent judge review of the deck checker (issue #24): tricky lists written from
the CrossOver Basic Rules v2.02 before reading the checker's code, each with the verdict
the rulebook requires and the section that requires it. Every list runs through all four
entry points (``both``: check_deck, the API, the check page and the registration form).

Sections relied on: 1−2−1 (the usable sets and promotional cards as of 2002-04-01; β
printings of three named cards banned from that day), 1−2−2 (β and other printings are told
apart on the card), 1−2−3 (50 or more cards, no upper limit; 4 per name counted with the
sideboard; only common navigators in any number), 1−2−4 (no sideboard, or 1 to 20 cards),
4−2−6 (names read alike but written differently are different cards)."""

import datetime as dt

import pytest

from cardpool.models import CardType
from tests.decks.conftest import BAN_DAY, DAY_BEFORE_BAN, make_formats
from tests.decks.entry_points_24 import both, codes
from tests.factories import CardFactory, PrintingFactory

PROMO_DAY = dt.date(2002, 6, 1)


@pytest.fixture
def pool(game, sets, cards):
    """The conftest pool plus the cards these lists need, then the built-in formats."""
    mizuki = CardFactory(game=game, name="水姫", card_type=CardType.CHARACTER)
    PrintingFactory(card=mizuki, set=sets["beta"], number="B-20", text="old")
    PrintingFactory(card=mizuki, set=sets["base"], number="020", text="new")
    madoka = CardFactory(game=game, name="深見まどか", card_type=CardType.CHARACTER)
    PrintingFactory(card=madoka, set=sets["beta"], number="B-30")  # β only in this pool
    for name in ("鳴瀬真奈美", "ナルセマナミ"):
        card = CardFactory(game=game, name=name, card_type=CardType.CHARACTER)
        PrintingFactory(card=card, set=sets["base"], number=name[:3])
    common_nav = CardFactory(game=game, name="コモンナビ", card_type=CardType.NAVIGATOR)
    PrintingFactory(card=common_nav, set=sets["first"], number="F-1", rarity="C")
    rare_nav = CardFactory(
        game=game, name="レアナビ", card_type=CardType.NAVIGATOR, unlimited=True
    )  # marked "any number" by mistake: a rare navigator is not exempt (1−2−3)
    PrintingFactory(card=rare_nav, set=sets["first"], number="F-2", rarity="R")
    common_char = CardFactory(game=game, name="コモンキャラ", card_type=CardType.CHARACTER)
    PrintingFactory(card=common_char, set=sets["first"], number="F-3", rarity="C")
    promo = CardFactory(game=game, name="夏のプロモ", card_type=CardType.EVENT)
    PrintingFactory(card=promo, set=sets["promo"], number="P-9", release_date=PROMO_DAY)
    old_promo = CardFactory(game=game, name="古いプロモ", card_type=CardType.EVENT)
    PrintingFactory(card=old_promo, set=sets["promo"], number="P-1")  # undated
    third = CardFactory(game=game, name="第三弾キャラ", card_type=CardType.CHARACTER)
    PrintingFactory(card=third, set=sets["third"], number="T-1")
    return make_formats()["crossover"]


def sb(text):
    return f"\nサイドボード\n{text}"


# 1−2−3: exactly 50 cards and no sideboard (1−2−4: none is allowed).
def test_exactly_50_no_sideboard_is_legal(client, pool, tmp_path):
    report = both(client, "4 森原 さとみ\n46 スワティ\n", BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []
    assert report["main_count"] == 50


# 1−2−3: 49 cards is one short.
def test_49_cards_is_too_small(client, pool, tmp_path):
    report = both(client, "4 森原 さとみ\n45 スワティ\n", BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["DECK_TOO_SMALL"]


# 1−2−3 / 1−2−4: sideboard cards do not count toward the 50 (49 + 1 is still short).
def test_49_plus_one_sideboard_card_is_too_small(client, pool, tmp_path):
    text = "4 森原 さとみ\n45 スワティ\n" + sb("1 水姫 [base]\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["DECK_TOO_SMALL"]


# 1−2−3: no upper limit.
def test_120_cards_is_legal(client, pool, tmp_path):
    report = both(client, "4 森原 さとみ\n116 スワティ\n", BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []


# 1−2−3: 3 in the deck and 1 in the sideboard is the rulebook's own legal example.
def test_three_main_one_sideboard_is_legal(client, pool, tmp_path):
    text = "3 森原 さとみ\n47 スワティ\n" + sb("1 森原 さとみ\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []


# 1−2−3: 4 in the deck leaves none for the sideboard (the rulebook's example).
def test_four_main_one_sideboard_is_too_many(client, pool, tmp_path):
    text = "4 森原 さとみ\n46 スワティ\n" + sb("1 森原 さとみ\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["TOO_MANY_COPIES"]


# 1−2−4: a sideboard of exactly 1 and of exactly 20 cards.
@pytest.mark.parametrize("size", [1, 20])
def test_sideboard_of_1_and_20_is_legal(client, pool, tmp_path, size):
    text = "4 森原 さとみ\n46 スワティ\n" + sb(f"{size} スワティ\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []
    assert report["sideboard_count"] == size


# 1−2−4: 21 is one too many.
def test_sideboard_of_21_is_too_large(client, pool, tmp_path):
    text = "4 森原 さとみ\n46 スワティ\n" + sb("4 水姫 [base]\n17 スワティ\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["SIDEBOARD_TOO_LARGE"]


# 1−2−3: a common navigator (printed rarity C, no "any number" mark) in any number, deck
# and sideboard together.
def test_common_navigator_in_quantity_is_legal(client, pool, tmp_path):
    text = "30 コモンナビ\n20 スワティ\n" + sb("10 コモンナビ\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []


# 1−2−3: only *common navigators*: a rare navigator (whatever the mark says) and a common
# character are held to 4.
@pytest.mark.parametrize("name", ["レアナビ", "コモンキャラ"])
def test_rare_navigator_and_common_character_are_held_to_four(client, pool, tmp_path, name):
    report = both(client, f"5 {name}\n45 スワティ\n", BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["TOO_MANY_COPIES"]


# 1−2−1: the β printing of 水姫 named on the list: legal the day before the ban, banned from
# 2002-04-01.
@pytest.mark.parametrize(("day", "legal"), [(DAY_BEFORE_BAN, True), (BAN_DAY, False)])
def test_named_beta_around_the_ban_day(client, pool, tmp_path, day, legal):
    report = both(client, "1 水姫 (β)\n4 森原 さとみ\n45 スワティ\n", day, tmp_path)
    assert report["legal"] is legal
    assert codes(report) == ([] if legal else ["BANNED"])


# 1−2−1 / 1−2−2: the ban is on β printings, not the name; a plain name is legal (the judge
# checks the cards), even when this pool only holds the β printing (深見まどか).
@pytest.mark.parametrize("name", ["水姫", "深見まどか"])
def test_plain_name_of_a_banned_beta_card_is_legal(client, pool, tmp_path, name):
    report = both(client, f"4 {name}\n4 森原 さとみ\n42 スワティ\n", BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []
    assert "BETA_PRINTING_CHECK" in [notice["code"] for notice in report["notices"]]


# 1−2−1: a banned card is not usable in the sideboard either (it can be swapped in).
def test_banned_beta_in_the_sideboard_only(client, pool, tmp_path):
    text = "4 森原 さとみ\n46 スワティ\n" + sb("1 水姫 (β)\n")
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["BANNED"]


# 1−2−3: printings of one name count together: 4 β (legal the day before the ban) and 1
# base-set 狡猾フィーリア are five copies.
def test_beta_and_base_printings_count_together(client, pool, tmp_path):
    text = "4 狡猾フィーリア (β)\n1 狡猾フィーリア [base]\n45 スワティ\n"
    report = both(client, text, DAY_BEFORE_BAN, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["TOO_MANY_COPIES"]


# 1−2−3: the same name written with and without a space, a full-width space and a
# full-width digit is one name: 2 + 2 + 1 = 5 copies; half-width ｽﾜﾃｨ is スワティ, a common
# navigator (only 森原 さとみ is over the limit, no unknown card).
def test_same_name_in_different_spacing_and_width_counts_together(client, pool, tmp_path):
    text = "2 森原さとみ\n2 森原　さとみ\n１ 森原 さとみ\n45 ｽﾜﾃｨ\n"
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["TOO_MANY_COPIES"]


# 4−2−6 with 1−2−3: 鳴瀬真奈美 and ナルセマナミ read alike but are different names, so
# four of each is legal.
def test_names_read_alike_are_different_cards(client, pool, tmp_path):
    text = "4 鳴瀬真奈美\n4 ナルセマナミ\n42 スワティ\n"
    report = both(client, text, BAN_DAY, tmp_path)
    assert report["legal"]
    assert codes(report) == []


# 1−2−1: a promotional card whose printing is released on 2002-06-01 cannot be played
# before that day, and can from it; an undated promotional card in the same list is usable
# on both days (only the unreleased card is refused, with the day it can be played).
@pytest.mark.parametrize(("day", "legal"), [(dt.date(2002, 5, 1), False), (PROMO_DAY, True)])
def test_promo_not_yet_released(client, pool, tmp_path, day, legal):
    text = "1 夏のプロモ\n1 古いプロモ\n4 森原 さとみ\n44 スワティ\n"
    report = both(client, text, day, tmp_path)
    assert report["legal"] is legal
    assert codes(report) == ([] if legal else ["SET_NOT_LEGAL"])
    if not legal:
        (violation,) = report["violations"]
        assert violation["cards"] == ["夏のプロモ"]
        assert violation["lines"] == [1]
        assert violation["details"]["legal_from"] == PROMO_DAY.isoformat()


# 1−2−1: the usable sets as of 2002-04-01 do not include THIRD EXPANSION.
def test_third_expansion_card_on_the_rulebook_date(client, pool, tmp_path):
    report = both(client, "1 第三弾キャラ\n4 森原 さとみ\n45 スワティ\n", BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["SET_NOT_LEGAL"]


# 4−2−6: a name in hiragana is not the katakana card read the same way; なるせまなみ is
# no card of this pool (an unknown card, not a fifth ナルセマナミ).
def test_hiragana_is_not_the_katakana_name(client, pool, tmp_path):
    text = "4 ナルセマナミ\n1 なるせまなみ\n45 スワティ\n"
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["UNKNOWN_CARD"]


# 1−2−3 / 4−2−6: すわてぃ is no card (スワティ written in hiragana); the list is illegal for
# the unknown card, but nothing says how many copies of it are allowed (an unknown card may
# be a common navigator), so it must not also be reported over the copy limit.
def test_unknown_card_in_quantity_is_only_unknown(client, pool, tmp_path):
    text = "4 ナルセマナミ\n46 すわてぃ\n"
    report = both(client, text, BAN_DAY, tmp_path)
    assert not report["legal"]
    assert codes(report) == ["UNKNOWN_CARD"]
