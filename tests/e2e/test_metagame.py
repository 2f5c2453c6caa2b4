"""The metagame pages in a browser: an event's after a top 8 (decklists public) on a
390 px phone in Japanese and on a 1366 px laptop in English, and the format's across
events on the laptop. The page never scrolls sideways, the charts fit the screen, the
numbers are in tables, and axe-core finds no serious WCAG 2.x A/AA violation.
Screenshots go to /tmp/shots/meta/."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from cardpool.models import CardType, Element
from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.factories import CardFactory, PrintingFactory
from tests.tournaments.factories import UserFactory
from tests.tournaments.test_final_standings import build_top_8
from tournaments import services
from tournaments.models import Registration

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/meta")
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 900}}
LOCALES = {"en": "en-US", "ja": "ja-JP"}

# Three kinds of deck: the legal deck of the tests, a water deck and a wind deck.
WATER = "4 森原 さとみ\n4 水の精\n42 スワティ\n"
WIND = "4 『風の刃』\n4 狡猾フィーリア [base]\n42 スワティ\nサイドボード\n2 水の精\n"


@pytest.fixture
def event(crossover, sets):
    water = CardFactory(
        game=crossover.game, name="水の精", card_type=CardType.CHARACTER, element=Element.WATER
    )
    PrintingFactory(card=water, set=sets["base"], number="020")
    blade = CardFactory(
        game=crossover.game, name="風の刃", card_type=CardType.SPELL, element=Element.WIND
    )
    PrintingFactory(card=blade, set=sets["base"], number="030")
    organizer = UserFactory(username="organizer")
    counter = iter(range(1, 1000))

    def make_players(count):
        return [UserFactory(username=f"player{next(counter):02d}") for _ in range(count)]

    event, _swiss = build_top_8(organizer, crossover, make_players)
    for index, registration in enumerate(Registration.objects.filter(event=event).order_by("id")):
        text = (None, WATER, WIND)[index % 3]
        if text:
            registration.deck_text = text
            registration.save(update_fields=["deck_text"])
    services.update_event(
        event, actor=organizer, decklists_public_from=timezone.now() - dt.timedelta(minutes=1)
    )
    return event


def check_page(page, name: str, size: str, problems: list[str]) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > SIZES[size]["width"]:
        problems.append(f"{name}: the page scrolls sideways ({width} px)")
    for svg in page.locator(".metagame-chart svg").all():
        box = svg.bounding_box()
        if box is None or box["width"] > SIZES[size]["width"] or box["width"] < 200:
            problems.append(f"{name}: a chart is {box and box['width']} px wide")
    problems.extend(f"{name}: {v}" for v in serious_violations(page))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    # The top of the page and the blocks one by one, at a size a person can look at.
    page.screenshot(path=str(SHOTS / f"{name}-top.png"))
    for block in ("meta-elements", "meta-types", "meta-cards", "meta-top"):
        section = page.locator(f"section[aria-labelledby={block}]")
        section.screenshot(path=str(SHOTS / f"{name}-{block}.png"))


@pytest.mark.parametrize(("size", "language"), [("phone", "ja"), ("laptop", "en")])
def test_metagame_pages(event, crossover, browser, live_server, size, language):
    context = browser.new_context(
        base_url=live_server.url, locale=LOCALES[language], viewport=SIZES[size]
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(reverse("tournaments:decklists", args=[event.pk]))
        link = page.locator(f'a[href="{reverse("tournaments:metagame", args=[event.pk])}"]')
        link.click()
        heading = {"ja": "メタゲーム", "en": "Metagame"}[language]
        expect(page.locator("h1")).to_have_text(heading)
        expect(page.locator(".metagame-chart svg").first).to_be_visible()
        # The chart's numbers are also in the tables: 10 decks, water in three of them.
        water = {"ja": "水", "en": "Water (水)"}[language]
        row = page.locator("section[aria-labelledby=meta-elements] tbody tr", has_text=water)
        expect(row).to_contain_text("30.0%")
        top = page.locator("section[aria-labelledby=meta-top] tbody tr")
        expect(top).to_have_count(8)
        check_page(page, f"{size}-{language}-event", size, problems)
        page.goto(reverse("decks:format_metagame", args=[crossover.slug]))
        expect(page.locator("section[aria-labelledby=meta-top] tbody tr")).to_have_count(8)
        check_page(page, f"{size}-{language}-format", size, problems)
        with page.expect_download() as download:
            page.locator("a[download]").first.click()
        content = download.value.path().read_bytes().decode("utf-8-sig")
        assert content.splitlines()[0].startswith({"ja": "区分,", "en": "Block,"}[language])
    finally:
        context.close()
    assert not problems, "\n".join(problems)
