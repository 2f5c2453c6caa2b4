"""The audit log in a real browser: a whole event's entries at 390 px in Japanese and at
1366 px in English read as sentences with their changes, the page does not scroll
sideways, and axe-core finds no serious or critical WCAG 2.2 A/AA violation.
Screenshots go to /tmp/shots/audit/ (not committed) for a human to look at."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.tournaments.factories import UserFactory
from tests.tournaments.test_audit import Log, play_whole_event
from tournaments.models import Match

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/audit")
SCREENS = [
    ("ja", {"width": 390, "height": 844}, "第1ラウンドを公開", "時刻はAsia/Tokyoです。"),
    ("en", {"width": 1366, "height": 900}, "Round 1 published", "Times in Asia/Tokyo."),
]


@pytest.fixture
def whole_event(crossover):
    organizer = UserFactory(username="organizer")
    judge = UserFactory(username="judge")

    def make_players(count: int, prefix: str = "player"):
        return [UserFactory(username=f"{prefix}{n:03d}") for n in range(1, count + 1)]

    return play_whole_event(Log(), organizer, judge, crossover, make_players)


@pytest.mark.parametrize(("language", "size", "sentence", "zone"), SCREENS)
def test_audit_log_reads_on_a_phone_and_a_laptop(
    new_page, live_server, log_in, whole_event, language, size, sentence, zone
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page()
    page.set_viewport_size(size)
    log_in(page, "organizer", "pw")  # the login form in English, then the language
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.goto(reverse("tournaments:audit_log", args=[whole_event.pk]))
    text = page.locator("main").inner_text()
    assert sentence in text
    assert zone in text
    for code in ("round.published", "hp_zero", "match.overridden", "game_loss"):
        assert code not in text
    label = f"{language}-{size['width']}"
    page.screenshot(path=str(SHOTS / f"audit-log-{label}.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"], f"the page is {width}px wide"
    assert serious_violations(page) == []
    entries = page.locator("li.audit-entry")
    for number in (6, 10, 14, 19, entries.count() - 1):  # results, a penalty, pairings, settings
        entries.nth(number).screenshot(path=str(SHOTS / f"entry-{number:02d}-{label}.png"))
    # the filter keeps working: only the results
    page.select_option("select[name=action]", "match.")
    page.locator("form.filters button[type=submit]").click()
    page.wait_for_load_state()
    assert "action=match." in page.url
    page.screenshot(path=str(SHOTS / f"audit-log-results-{label}.png"), full_page=False)
    # the player page's history, with the same list
    penalised = (
        Match.objects.filter(round__event=whole_event, round__number=1).order_by("table")[0]
    ).player2_id
    page.goto(reverse("tournaments:player_detail", args=[whole_event.pk, penalised]))
    section = page.locator("section.player-audit")
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(SHOTS / f"player-audit-{label}.png"))
    assert serious_violations(page, {"include": [["section.player-audit"]]}) == []
    page.goto(reverse("tournaments:dashboard", args=[whole_event.pk]))
    audit = page.locator("ol.audit-entries")
    audit.scroll_into_view_if_needed()
    audit.screenshot(path=str(SHOTS / f"dashboard-audit-{label}.png"))
