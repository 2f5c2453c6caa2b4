"""Rule 1−2−3: only common navigators may be put in a deck in any number. The exemption
is derived from the card's type and its printed rarity, not from the "any number of
copies" mark: a rare navigator imported with the mark counts, a common navigator imported
without it does not (issue #24, "Navigators"). Each case runs through ``check_deck`` and
``POST /api/v1/decks/check/``."""

import dataclasses

import pytest
from django.urls import reverse

from cardpool.models import CardType
from decks import services
from decks.engine.model import CardInfo, PrintingInfo
from tests.decks.conftest import BAN_DAY
from tests.decks.entry_points_24 import both, codes
from tests.factories import CardFactory, PrintingFactory

pytestmark = pytest.mark.django_db

# 4 + 4 + 37 + the navigator under test.
BASE = "4 森原 さとみ\n4 狡猾フィーリア [base]\n"


def navigator(game, sets, name, rarity, *, unlimited=False, card_type=CardType.NAVIGATOR):
    card = CardFactory(game=game, name=name, card_type=card_type, unlimited=unlimited)
    PrintingFactory(card=card, set=sets["base"], number=name, rarity=rarity)
    return card


def test_1_2_3_rare_navigator_with_the_mark_is_held_to_four(
    client, game, sets, crossover, tmp_path
):
    navigator(game, sets, "レアナビ", "レア", unlimited=True)
    report = both(client, BASE + "37 スワティ\n5 レアナビ\n", BAN_DAY, tmp_path)
    assert report["legal"] is False
    assert codes(report) == ["TOO_MANY_COPIES"]
    violation = report["violations"][0]
    assert violation["rule"] == "1−2−3"
    assert violation["cards"] == ["レアナビ"]
    assert violation["lines"] == [4]
    assert violation["details"] == {"count": 5, "limit": 4}


def test_1_2_3_common_navigator_without_the_mark_is_unlimited(
    client, game, sets, crossover, tmp_path
):
    navigator(game, sets, "コモンナビ", "C", unlimited=False)
    report = both(client, BASE + "30 スワティ\n12 コモンナビ\n", BAN_DAY, tmp_path)
    assert report["legal"] is True
    assert report["violations"] == []
    assert report["notices"] == []


def test_1_2_3_common_card_of_another_type_with_the_mark_counts(
    client, game, sets, crossover, tmp_path
):
    navigator(game, sets, "コモンキャラ", "コモン", unlimited=True, card_type=CardType.CHARACTER)
    report = both(client, BASE + "37 スワティ\n5 コモンキャラ\n", BAN_DAY, tmp_path)
    assert codes(report) == ["TOO_MANY_COPIES"]
    assert report["violations"][0]["cards"] == ["コモンキャラ"]


def test_1_2_3_navigator_of_unknown_rarity_without_the_mark_is_for_the_judge(
    client, game, sets, crossover, tmp_path
):
    # The pool does not say whether it is a common: not an error the pool can prove, so
    # the deck is legal and the notice says what a judge checks on the cards.
    navigator(game, sets, "不明ナビ", "", unlimited=False)
    report = both(client, BASE + "34 スワティ\n8 不明ナビ\n", BAN_DAY, tmp_path)
    assert report["legal"] is True
    assert report["notices"] == [
        {
            "code": "RARITY_CHECK",
            "message_en": "8 copies of 不明ナビ: only common navigators may exceed 4 (1−2−3), "
            "and no rarity is recorded for this card. Check that the cards are commons.",
            "message_ja": "〔不明ナビ〕が8枚あります。4枚を超えて入れられるのはコモンのナビゲーター"
            "カードだけです（1−2−3）。このカードのレアリティが登録されていないため、"
            "コモンであることを確認してください。",
            "cards": ["不明ナビ"],
            "lines": [4],
        }
    ]


def test_1_2_3_navigator_of_unknown_rarity_within_the_limit_has_no_notice(
    client, game, sets, crossover, tmp_path
):
    navigator(game, sets, "不明ナビ", "", unlimited=False)
    report = both(client, BASE + "38 スワティ\n4 不明ナビ\n", BAN_DAY, tmp_path)
    assert report["legal"] is True
    assert report["notices"] == []


def test_1_2_3_mark_stands_in_only_for_an_unknown_rarity(crossover, cards):
    # スワティ (conftest) carries the mark and no rarity: the mark is the pool's word.
    rules = services.format_rules(crossover)
    swati = services.load_pool(crossover.game).pool.lookup("スワティ")
    assert swati.common is None
    assert rules.exempt(swati) is True
    rare = dataclasses.replace(swati, printings=(PrintingInfo("base", rarity="R"),))
    assert rules.exempt(rare) is False
    common = CardInfo("x", "x", "NAVIGATOR", printings=(PrintingInfo("base", rarity="ｃ"),))
    assert rules.exempt(common) is True


def test_1_2_3_other_games_keep_their_per_format_rule(formats):
    # Monster Collection's format does not honour the mark and has no derived exemption.
    rules = services.format_rules(formats["monster-collection"])
    marked = CardInfo(
        "x", "x", "NAVIGATOR", unlimited=True, printings=(PrintingInfo("s", rarity="C"),)
    )
    assert rules.exempt(marked) is False
    asura = dataclasses.replace(
        services.format_rules(formats["asura-system"]), exempt_unlimited=True
    )
    assert asura.exempt(marked) is True
    assert asura.exempt(dataclasses.replace(marked, unlimited=False)) is False


def test_1_2_3_named_printing_of_another_rarity_counts(client, game, sets, crossover, tmp_path):
    # The same navigator as a common in the basic set and a promotional printing: copies
    # named in the promotional printing are not commons and count towards the limit.
    card = navigator(game, sets, "コモンナビ", "C")
    PrintingFactory(card=card, set=sets["promo"], number="P-7", rarity="PR")
    report = both(client, BASE + "34 スワティ\n8 コモンナビ [promo]\n", BAN_DAY, tmp_path)
    assert codes(report) == ["TOO_MANY_COPIES"]
    assert report["violations"][0]["details"] == {"count": 8, "limit": 4}
    # Four promotional copies beside any number of commons: legal.
    report = both(
        client, BASE + "30 スワティ\n4 コモンナビ [promo]\n8 コモンナビ [base]\n", BAN_DAY, tmp_path
    )
    assert report["legal"] is True


def test_1_2_3_format_admin_says_what_the_fields_derive(admin_client, crossover):
    page = admin_client.get(reverse("admin:decks_format_change", args=[crossover.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert (
        "Rule 1−2−3: a card of this type printed as a common may be played in any number,"
        " marked or not; one printed at another rarity counts towards the limit even when"
        " marked; a card of another type always counts."
    ) in body
    assert "the mark counts only for a card of that type whose rarity is not recorded" in body
