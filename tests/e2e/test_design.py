"""The design system in a real browser: the public pages of the site on a phone (390×844)
and a wide screen (1366×900), in English and in Japanese.

On each page: the page never scrolls sideways, the header of a phone is at most 64 px tall
with its menu closed, and axe-core finds no serious or critical WCAG 2.x A/AA violation.
Once per screen, the menu opens (on a phone) or shows inline (wide) with the nav links and
the language switch; a player logs in through the form and finds "My events" and "My decks"
in it. Screenshots go to /tmp/shots/design/ for a human to look at (not committed). Every
page is checked before the test fails, so one run reports every problem.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from rules.services import import_rules_document
from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.rules.conftest import import_seed
from tests.tournaments.factories import UserFactory, open_event, register_all

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1366, "height": 900}
HEADER_MAX = 64  # px: the phone's header with the menu closed
SHOTS = Path("/tmp/shots/design")
# 50 cards; the last line names a card the pool does not have, so the report lists a
# problem and flags a long line.
DECK = (
    "4 森原 さとみ\n4 狡猾フィーリア [base]\n41 スワティ\n"
    "1 A card whose name is very long and is not in the card pool at all\n"
)


@pytest.fixture
def site(crossover, cards):
    """Two open events (one with a long Japanese name and players), the small card pool,
    and a rulebook (the CrossOver Basic Rules from ../shared/seeds when present, else a
    small one)."""
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover, name="Spring Open")
    register_all(event, [UserFactory(username=f"entrant{n}") for n in range(3)])
    long_name = "第3回 クロスオーバー 春の大型公認大会 東京会場"
    open_event(organizer, crossover, name=long_name, capacity=64)
    try:
        import_seed("000")
        section = "/rules/crossover/4-3-8/"
    except pytest.skip.Exception:
        import_rules_document(
            game=crossover.game,
            text="■■ R Version 1 ■■ 1 準備 ◆準備の本文。 1−1 デッキ ◆50枚。 2 対戦 ◆本文。",
            checksum="small",
        )
        section = "/rules/crossover/1-1/"
    UserFactory(username="hanako")
    return {"card": cards["feeria"], "section": section}


class Screen:
    """One browser page at one size in one language: keeps what went wrong instead of
    stopping at the first problem."""

    def __init__(self, page, language: str, size: dict):
        self.page = page
        self.language = language
        self.size = size
        self.phone = size["width"] < 600
        self.problems: list[str] = []
        self.count = 0

    @property
    def label(self) -> str:
        return f"{self.language}-{self.size['width']}"

    def shot(self, name: str) -> None:
        self.count += 1
        path = SHOTS / f"{self.label}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)

    def check(self, name: str) -> None:
        page = self.page
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > self.size["width"]:
            wide = page.evaluate(
                """() => [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5
                            && !e.closest('.table-wrap'))
                    .slice(0, 6)
                    .map(e => e.outerHTML.slice(0, 160))"""
            )
            self.problems.append(
                f"[{self.label}] {name}: the page is {width}px wide; sticking out: {wide}"
            )
        if self.phone:
            height = page.evaluate(
                "document.querySelector('.site-header').getBoundingClientRect().height"
            )
            if height > HEADER_MAX:
                self.problems.append(f"[{self.label}] {name}: the header is {height}px tall")
        if serious := serious_violations(page):
            self.problems.append(f"[{self.label}] {name} ({page.url}): {'; '.join(serious)}")

    def visit(self, name: str, path: str) -> None:
        self.page.goto(path)
        self.shot(name)
        self.check(name)


def open_screen(new_page, live_server, language: str, size: dict) -> Screen:
    page = new_page(locale="ja-JP" if language == "ja" else "en-US")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.set_viewport_size(size)
    return Screen(page, language, size)


def menu_links(screen: Screen, names: list[str]) -> None:
    """On a phone the menu opens from its button and shows ``names``; wide, they show
    without it."""
    page = screen.page
    summary = page.locator(".site-menu > summary")
    nav = page.locator("nav.site-nav")
    if screen.phone:
        expect(nav).to_be_hidden()
        expect(page.locator("#language-select")).to_be_hidden()
        summary.click()
        expect(page.locator(".site-menu")).to_have_attribute("open", "")
        screen.page.screenshot(path=str(SHOTS / f"{screen.label}-menu-open-{len(names)}.png"))
    else:
        expect(summary).to_be_hidden()
    for name in names:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(page.locator("#language-select")).to_be_visible()
    if screen.phone:
        summary.click()
        expect(nav).to_be_hidden()


def deck_check(screen: Screen) -> None:
    page = screen.page
    page.goto("/decks/check/")
    page.locator("textarea").fill(DECK)
    page.locator(".deck-form button[type=submit]").click()
    expect(page.locator("#report .verdict")).to_be_visible()
    expect(page.locator("#report .decklines li.bad")).to_have_count(1)
    screen.shot("deck-check")
    screen.check("deck check")


def log_in_by_form(screen: Screen) -> None:
    page = screen.page
    page.goto("/accounts/login/")
    page.locator("#id_username").fill("hanako")
    page.locator("#id_password").fill("pw")
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()


TEXTS = {
    "en": {
        "anonymous": ["Events", "Check a deck", "Cards", "Rules", "Log in", "Sign up"],
        "player": ["Events", "My events", "My decks", "Check a deck"],
    },
    "ja": {
        "anonymous": ["大会", "デッキチェック", "カード", "ルール", "ログイン"],
        "player": ["大会", "マイデッキ", "デッキチェック"],
    },
}


@pytest.mark.parametrize("size", [PHONE, WIDE], ids=["phone", "wide"])
def test_design_public_pages_fit_and_pass_axe(new_page, live_server, site, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    screens = [open_screen(new_page, live_server, language, size) for language in ("en", "ja")]
    for screen in screens:
        texts = TEXTS[screen.language]
        screen.visit("home", "/")
        menu_links(screen, texts["anonymous"])
        screen.visit("events", "/events/")
        deck_check(screen)
        screen.visit("cards", "/cards/")
        screen.visit("card", f"/cards/{site['card'].pk}/")
        screen.visit("rules", "/rules/")
        screen.visit("rules-section", site["section"])
        screen.visit("calculator", "/rules/calculator/?example=4-3-8-example-1")
        screen.visit("signup", "/accounts/signup/")
        screen.visit("login", "/accounts/login/")
        log_in_by_form(screen)
        screen.visit("home-signed-in", "/")
        menu_links(screen, texts["player"])
        screen.visit("my-decks", "/decks/")
    problems = [problem for screen in screens for problem in screen.problems]
    assert not problems, "\n\n".join(problems)
