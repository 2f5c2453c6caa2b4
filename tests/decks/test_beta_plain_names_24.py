"""Rules 1−2−1 and 1−2−2: the rulebook bans the βedition printings of 〔狡猾フィーリア〕
〔深見まどか〕〔水姫〕 (as of 2002-04-01), not the names. A name written without a printing
is never banned because the card pool happens to record only its β printing: it is legal,
with the notice that tells the judge what to look at on the cards (1−2−2). Through
``check_deck`` and ``POST /api/v1/decks/check/`` (issue #24, "β-only names written plain")."""

import pytest

from cardpool.models import Card, CardType
from tests.decks.conftest import BAN_DAY, DAY_BEFORE_BAN
from tests.decks.entry_points_24 import both, codes
from tests.factories import PrintingFactory

pytestmark = pytest.mark.django_db

# 50 cards; the pool records 深見まどか only in its βedition printing.
PLAIN = "4 森原 さとみ\n4 狡猾フィーリア [base]\n41 スワティ\n1 深見まどか\n"
NAMED_BETA = "4 森原 さとみ\n4 狡猾フィーリア [base]\n41 スワティ\n1 深見まどか [β]\n"
NOTICE_EN = (
    "Check that these cards are not βedition printings, which are banned: 深見まどか (line 4)."
    " A βedition card has “βedition” in white letters under the title logo on its back"
    " (1−2−2)."
)
NOTICE_JA = (
    "次のカードがβ版でないことを確認してください（β版は禁止カードです）: 〔深見まどか〕（4行目）。"
    "β版のカードは、うら面のタイトルロゴの下に白い文字で「βedition」と表記されています"
    "（1−2−2）。"
)


@pytest.fixture
def madoka(game, sets, crossover):
    # The built-in ban list made the card (its βedition printing banned from 2002-04-01).
    card = Card.objects.get(game=game, name="深見まどか")
    assert list(crossover.bans.filter(card=card).values_list("printing_set__code", flat=True)) == [
        "beta"
    ]
    Card.objects.filter(pk=card.pk).update(card_type=CardType.CHARACTER)
    PrintingFactory(card=card, set=sets["beta"], number="B-20")
    return card


def test_1_2_1_plain_name_with_only_a_beta_printing_is_legal_with_the_notice(
    client, madoka, tmp_path
):
    report = both(client, PLAIN, BAN_DAY, tmp_path)
    assert report["legal"] is True
    assert report["violations"] == []
    assert report["notices"] == [
        {
            "code": "BETA_PRINTING_CHECK",
            "message_en": NOTICE_EN,
            "message_ja": NOTICE_JA,
            "cards": ["深見まどか"],
            "lines": [4],
        }
    ]


def test_1_2_1_named_beta_printing_is_banned(client, madoka, tmp_path):
    report = both(client, NAMED_BETA, BAN_DAY, tmp_path)
    assert codes(report) == ["BANNED"]
    assert report["violations"][0]["rule"] == "1−2−1"
    assert report["violations"][0]["details"] == {"set": "beta"}


def test_1_2_1_plain_name_before_the_ban_has_no_notice(client, madoka, tmp_path):
    report = both(client, PLAIN, DAY_BEFORE_BAN, tmp_path)
    assert report["legal"] is True
    assert report["notices"] == []


def test_1_2_1_a_ban_of_the_name_still_bans_the_plain_name(client, madoka, crossover, tmp_path):
    crossover.bans.create(card=madoka, printing_set=None, effective_from=BAN_DAY)
    report = both(client, PLAIN, BAN_DAY, tmp_path)
    assert codes(report) == ["BANNED"]
