"""The deck check page in a browser (issue 13): a report with a problem, a note and a rule
link, on a 390 px phone in Japanese and a 1366 px laptop in English. Headings are words,
not engine codes; the rule citation opens the imported rulebook's section; no sideways
scroll; axe-core finds no serious WCAG 2.x A/AA violation. Screenshots go to
/tmp/shots/deck-report/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from rules.models import RulesDocument, Section
from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.factories import CardFactory

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/deck-report")
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 900}}
LOCALES = {"en": "en-US", "ja": "ja-JP"}
# Banned βedition printings (rule 1−2−1) and a card with no recorded printing (a note).
DECKLIST = deck_fixtures.BETA_DECK + "1 名無しのカード\n"
TEXTS = {
    "ja": {"problem": "禁止カード", "note": "収録セット未登録", "rule": "ルール1−2−1"},
    "en": {"problem": "Banned card", "note": "Set not recorded", "rule": "rule 1−2−1"},
}


@pytest.fixture
def rulebook(crossover):
    CardFactory(game=crossover.game, name="名無しのカード", card_type="ITEM")
    document = RulesDocument.objects.create(
        game=crossover.game, title="Test rulebook", version="1", style="oneline"
    )
    Section.objects.create(
        document=document, number="1−2−1", number_key="1-2-1", title="Test section", order=1
    )
    return document


@pytest.mark.parametrize(("size", "language"), [("phone", "ja"), ("laptop", "en")])
def test_deck_check_report(rulebook, browser, live_server, size, language):
    context = browser.new_context(
        base_url=live_server.url, locale=LOCALES[language], viewport=SIZES[size]
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    problems: list[str] = []
    texts = TEXTS[language]
    try:
        page.goto(reverse("decks:check"))
        page.locator("#id_as_of").fill("2002-04-01")
        page.locator("#id_decklist").fill(DECKLIST)
        page.locator("form.deck-form button[type=submit]").click()
        violations = page.locator("#report ul.violations li")
        expect(violations).to_have_count(1)
        expect(violations.locator(".report-heading")).to_have_text(texts["problem"])
        link = violations.locator(".rule a")
        expect(link).to_have_text(texts["rule"])
        expect(link).to_have_attribute("href", "/rules/crossover/1-2-1/")
        notes = page.locator("#report ul.notices li")
        expect(notes).to_have_count(1)
        expect(notes.locator(".report-heading")).to_have_text(texts["note"])
        expect(page.locator("#report .flag")).to_have_text([texts["problem"]])
        assert "BANNED" not in page.locator("#report").inner_text()
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > SIZES[size]["width"]:
            problems.append(f"the page scrolls sideways ({width} px)")
        problems.extend(serious_violations(page))
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{size}-{language}.png"), full_page=True)
        page.locator("#report").screenshot(path=str(SHOTS / f"{size}-{language}-report.png"))
        link.click()
        expect(page).to_have_url(f"{live_server.url}/rules/crossover/1-2-1/")
    finally:
        context.close()
    assert not problems, "\n".join(problems)
