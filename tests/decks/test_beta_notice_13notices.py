"""Rule 1−2−1/1−2−2: a card named without a printing, whose βedition printing is banned,
is legal but carries a notice asking the judge to check the physical cards, on the deck
check page, in the API report and in ``check_deck --json`` (issue #13)."""

import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from tests.decks.conftest import BAN_DAY, DAY_BEFORE_BAN

pytestmark = pytest.mark.django_db

# 50 cards; 狡猾フィーリア (line 2) has a βedition printing banned from 2002-04-01.
BY_NAME = "4 森原 さとみ\n4 狡猾フィーリア\n42 スワティ\n"
NOTICE_EN = (
    "Check that these cards are not βedition printings, which are banned: 狡猾フィーリア (line 2)."
    " A βedition card has “βedition” in white letters under the title logo on its back (1−2−2)."
)
NOTICE_JA = (
    "次のカードがβ版でないことを確認してください（β版は禁止カードです）: "
    "〔狡猾フィーリア〕（2行目）。"
    "β版のカードは、うら面のタイトルロゴの下に白い文字で「βedition」と表記されています（1−2−2）。"
)
NOTICE = {
    "code": "BETA_PRINTING_CHECK",
    "message_en": NOTICE_EN,
    "message_ja": NOTICE_JA,
    "cards": ["狡猾フィーリア"],
    "lines": [2],
}


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _site_language_afterwards():
    # A request in Japanese leaves Japanese active in this thread; later tests expect
    # the site's default.
    yield
    translation.deactivate()


def check_page(client, as_of, **extra):
    data = {"format": "crossover", "as_of": as_of.isoformat(), "decklist": BY_NAME}
    return client.post(reverse("decks:check"), data, **extra)


def test_1_2_1_check_page_shows_the_beta_notice_on_a_legal_deck(client, crossover):
    response = check_page(client, BAN_DAY)
    assert response.status_code == 200
    assert response.context["report"].legal
    body = response.content.decode()
    assert NOTICE_EN in body
    assert NOTICE_JA not in body


def test_1_2_1_check_page_shows_the_beta_notice_in_japanese(client, crossover):
    body = check_page(client, BAN_DAY, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert NOTICE_JA in body


def test_1_2_1_check_page_has_no_beta_notice_before_the_ban(client, crossover):
    body = check_page(client, DAY_BEFORE_BAN).content.decode()
    assert "βedition printings" not in body


def test_1_2_1_api_report_carries_the_beta_notice(client, crossover):
    response = client.post(
        "/api/v1/decks/check/",
        {"format": "crossover", "decklist": BY_NAME, "as_of": BAN_DAY.isoformat()},
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["legal"] is True
    assert body["violations"] == []
    assert body["notices"] == [{**NOTICE, "message": NOTICE_EN}]


def test_1_2_1_api_report_in_japanese(client, crossover):
    response = client.post(
        "/api/v1/decks/check/",
        {"format": "crossover", "decklist": BY_NAME, "as_of": BAN_DAY.isoformat()},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    assert response.json()["notices"] == [{**NOTICE, "message": NOTICE_JA}]


def test_1_2_1_check_deck_json_carries_the_beta_notice(crossover, tmp_path):
    path = tmp_path / "deck.txt"
    path.write_text(BY_NAME, encoding="utf-8")
    out = io.StringIO()
    call_command(
        "check_deck", str(path), "--format", "crossover", "--as-of", "2002-04-01", "--json",
        stdout=out,
    )  # fmt: skip
    report = json.loads(out.getvalue())
    assert report["legal"] is True
    assert report["notices"] == [{**NOTICE, "message": NOTICE_EN}]


def test_1_2_1_check_deck_text_prints_the_beta_notice(crossover, tmp_path):
    path = tmp_path / "deck.txt"
    path.write_text(BY_NAME, encoding="utf-8")
    out = io.StringIO()
    call_command(
        "check_deck", str(path), "--format", "crossover", "--as-of", "2002-04-01",
        "--language", "ja", stdout=out,
    )  # fmt: skip
    assert out.getvalue().splitlines() == [
        "LEGAL — crossover v1 as of 2002-04-01",
        "deck 50, sideboard 0",
        f"  note: {NOTICE_JA}",
    ]
