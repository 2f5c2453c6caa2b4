"""In a real browser (issue #13): the card page says which printing's text is in force and
why (rule 1−2−1), and the deck check page shows the βedition notice on a legal deck, on a
390 px phone in Japanese and a 1366 px laptop in English. No sideways scroll; axe-core
finds no serious WCAG 2.x A/AA violation. Screenshots: /tmp/shots/notices/ (not committed).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from cardpool.models import CardType
from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.factories import CardFactory, PrintingFactory

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/notices")
CASES = {
    "phone-ja": ({"width": 390, "height": 844}, "ja-JP"),
    "laptop-en": ({"width": 1366, "height": 900}, "en-US"),
}
# 狡猾フィーリア written without a printing: legal, with the βedition notice.
DECKLIST = "4 森原 さとみ\n4 狡猾フィーリア\n42 スワティ\n"
TEXTS = {
    "phone-ja": {
        "in_force": "有効なテキスト: THIRD EXPANSION（2002-06-01発売）— 発売日が最も新しい版"
        "（ルール1−2−1）。",
        "notice": "次のカードがβ版でないことを確認してください（β版は禁止カードです）: "
        "〔狡猾フィーリア〕（2行目）。",
    },
    "laptop-en": {
        "in_force": "Text in force: THIRD EXPANSION (released 2002-06-01) — the newest printing"
        " by release date (rule 1−2−1).",
        "notice": "Check that these cards are not βedition printings, which are banned: "
        "狡猾フィーリア (line 2).",
    },
}


@pytest.fixture
def reprinted(crossover, sets):
    sets["third"].release_date = dt.date(2002, 6, 1)
    sets["third"].save()
    card = CardFactory(game=crossover.game, name="滝口 洋介", card_type=CardType.CHARACTER)
    PrintingFactory(card=card, set=sets["base"], number="050", text="old text")
    PrintingFactory(card=card, set=sets["third"], number="T-12", text="new text")
    return card


@pytest.mark.parametrize("case", list(CASES))
def test_card_text_in_force_and_beta_notice(case, reprinted, new_page):
    size, locale = CASES[case]
    texts = TEXTS[case]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(locale)
    page.set_viewport_size(size)
    problems: list[str] = []

    def look(name: str) -> None:
        page.wait_for_load_state()
        page.screenshot(path=str(SHOTS / f"{case}-{name}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > size["width"]:
            problems.append(f"{name}: the page is {width}px wide")
        if serious := serious_violations(page):
            problems.append(f"{name}: {'; '.join(serious)}")

    page.goto(reverse("cardpool:card_detail", args=[reprinted.pk]))
    expect(page.locator("dl.card-facts")).to_contain_text(texts["in_force"])
    expect(page.locator("dl.card-facts")).to_contain_text("new text")
    look("card")

    page.goto(reverse("decks:check"))
    page.locator("select[name=format]").select_option("crossover")
    page.locator("input[name=as_of]").fill("2002-04-01")
    page.locator("textarea[name=decklist]").fill(DECKLIST)
    page.locator("main form button[type=submit]").click()
    expect(page.locator(".verdict.legal")).to_be_visible()
    expect(page.locator("main")).to_contain_text(texts["notice"])
    look("check")
    assert problems == []
