"""Why this opponent, in a real browser (issue #14): a player opens a round's pairings,
follows "Why these pairings" and reads their own table's reason, the bye's reason and the
score groups; a judge reaches the same page from the staff dashboard. At 390×844 in
Japanese and 1366×900 in English; no sideways scroll, no serious or critical axe-core
finding. Screenshots: /tmp/shots/why/ (not committed).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import CASES, serious_violations
from tests.tournaments.factories import UserFactory, open_event, play_round, register_all
from tournaments import services

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/why")
PASSWORD = "a-long-pass-2026"
NAMES = ("Hanako", "Kenji", "Mika", "Sora", "Yuto", "Aoi", "Ren")


@pytest.fixture
def running(crossover):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    judge = UserFactory(username="judge", password=PASSWORD)
    event = open_event(organizer, crossover, name="Spring Cup", swiss_rounds=4)
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    players = [
        UserFactory(username=name.lower(), first_name=name, last_name="Test", password=PASSWORD)
        for name in NAMES
    ]
    register_all(event, players)
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    services.publish_round(services.generate_round(event, actor=organizer), actor=organizer)
    return event, players


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()


@pytest.mark.parametrize("case", list(CASES))
def test_player_and_judge_read_why_these_pairings(case, running, new_page, live_server):
    size, locale, language = CASES[case]
    event, _players = running
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    count = 0

    with translation.override(language):
        why_link = gettext("Why these pairings")
        your_table = gettext("Your table")
        score_groups = gettext("Score groups")
        best = gettext(
            "These pairings are the best possible for these players: %(rematches)s "
            "rematches, %(floats)s floats, %(gaps)s points of score gap in all."
        ).split("%(")[0]

    def look(page, name: str) -> None:
        nonlocal count
        page.wait_for_load_state()
        count += 1
        prefix = f"{case}-{count:02d}-{name}"
        page.screenshot(path=str(SHOTS / f"{prefix}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > size["width"]:
            problems.append(f"{prefix}: the page is {width}px wide")
        if serious := serious_violations(page):
            problems.append(f"{prefix}: {'; '.join(serious)}")

    player_page = new_page(locale)
    player_page.set_viewport_size(size)
    log_in(player_page, "hanako")
    player_page.goto(reverse("tournaments:pairings", args=[event.pk, 2]))
    player_page.get_by_role("link", name=why_link).click()
    player_page.wait_for_load_state()
    expect(player_page.locator("#why-summary")).to_contain_text(best)
    expect(player_page.locator("#why-mine")).to_have_text(your_table)
    expect(player_page.get_by_role("heading", name=score_groups, exact=True)).to_be_visible()
    expect(player_page.locator("#why-bye")).to_be_visible()  # seven players: a bye
    look(player_page, "player")

    judge_page = new_page(locale)
    judge_page.set_viewport_size(size)
    log_in(judge_page, "judge")
    judge_page.goto(reverse("tournaments:dashboard", args=[event.pk]))
    judge_page.get_by_role("link", name=why_link).last.click()
    judge_page.wait_for_load_state()
    expect(judge_page.locator("h1")).to_contain_text("2")
    expect(judge_page.locator("#why-objective")).to_be_visible()
    look(judge_page, "judge")

    # The event page says how to verify the event.
    judge_page.goto(reverse("tournaments:event_detail", args=[event.pk]))
    expect(judge_page.locator("section.verify-event code").first).to_have_text(
        f"python -m tournaments.engine.replay event-{event.pk}.json"
    )
    look(judge_page, "event")

    assert not problems, "\n".join(problems)
