"""An organizer runs an event of eight players through its two Swiss rounds in a real
browser only by pressing the staff dashboard's main button (issue #12's proof): start →
generate → review the pairings on the page → publish → start the clock → (the players'
results come in) → close → generate round 2 → … → close; then the event is finished
behind its "I understand" box. At 1366 px in English and at 390 px in Japanese.

The players' results are entered through the services (the players' own pages have
their browser test in test_event_flow.py / test_player_phone.py). On every dashboard
seen, the page must not scroll sideways and axe-core must find no serious or critical
WCAG 2.2 A/AA violation. Screenshots go to /tmp/shots/dash/ (not committed).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.tournaments.factories import UserFactory, open_event, register_all, report_all
from tournaments.models import Event, EventState, Round, RoundStatus

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 900}}
LOCALES = {"en": "en-US", "ja": "ja-JP"}
SHOTS = Path("/tmp/shots/dash")
# The whole dashboard is checked (the penalties' table is a focusable region).
AXE_CONTEXT = None
ROUND_STEPS = [
    "generate_round",
    "review_and_publish",
    "start_clock",
    "chase_results",
    "close_round",
]


def labels(language: str) -> dict[str, str]:
    """The main button's label at each step, from the site's own catalogue."""
    with translation.override(language):
        return {
            "start_event": gettext("Start the event"),
            "generate": gettext("Generate round %(number)s"),
            "publish": gettext("Publish round %(number)s"),
            "start_clock": gettext("Start the clock of round %(number)s"),
            "close": gettext("Close round %(number)s"),
            "finish": gettext("Finish the event"),
        }


@pytest.mark.parametrize(("size", "language"), [("laptop", "en"), ("phone", "ja")], ids=str)
def test_two_rounds_only_through_the_main_button(size, language, new_page, crossover, live_server):
    want = labels(language)
    organizer = UserFactory(username="organizer")
    players = [UserFactory(username=f"player{n}") for n in range(1, 9)]
    event = open_event(organizer, crossover, name="Dash Cup", swiss_rounds=2, capacity=16)
    register_all(event, players)

    page = new_page(locale=LOCALES[language])
    page.set_viewport_size(SIZES[size])
    page.goto(reverse("login"))  # the login form, in the page's language
    page.locator("#id_username").fill("organizer")
    page.locator("#id_password").fill("pw")
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    dashboard = reverse("tournaments:dashboard", args=[event.pk])
    page.goto(dashboard)
    assert page.locator("html").get_attribute("lang") == language

    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    seen: list[str] = []
    main = page.locator("#next-action .button--primary")

    def look(name: str) -> None:
        page.wait_for_load_state()
        shot = SHOTS / f"{size}-{language}-{len(seen):02d}-{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        # what the organizer sees first, without scrolling
        page.screenshot(path=str(shot.with_name(shot.stem + "-top.png")))
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > SIZES[size]["width"]:
            problems.append(f"{shot.name}: the page is {width}px wide")
        if serious := serious_violations(page, AXE_CONTEXT):
            problems.append(f"{shot.name}: {'; '.join(serious)}")

    def step() -> str:
        kind = page.locator("#next-action").get_attribute("data-next")
        seen.append(kind)
        look(kind)
        # one primary button on the whole page, except at the finish (a danger button)
        assert page.locator(".button--primary").count() == (0 if kind == "finish_event" else 1)
        return kind

    assert step() == "start_event"
    assert main.inner_text().strip() == want["start_event"]
    main.click()

    for _ in range(12):
        kind = step()
        if kind == "finish_event":
            break
        current = Round.objects.filter(event=event).order_by("-number").first()
        if kind == "generate_round":
            number = (current.number if current else 0) + 1
            assert main.inner_text().strip() == want["generate"] % {"number": number}
        elif kind == "review_and_publish":
            number = current.number
            # the draft round's pairings are on the page: four tables, eight names
            review = page.locator("#next-action table.pairings tbody tr")
            assert review.count() == 4
            panel = page.locator("#next-action").inner_text()
            for match in current.matches.select_related("player1__player", "player2__player"):
                assert match.player1.player.username in panel
                assert match.player2.player.username in panel
            assert main.inner_text().strip() == want["publish"] % {"number": number}
        elif kind == "start_clock":
            assert main.inner_text().strip() == want["start_clock"] % {"number": current.number}
        elif kind == "chase_results":
            # the outstanding tables are listed with their result links; the results
            # then come in (the players report and confirm)
            assert page.locator("#next-action table.outstanding tbody tr").count() == 4
            report_all(current)
        elif kind == "close_round":
            assert main.inner_text().strip() == want["close"] % {"number": current.number}
        main.click()
        page.wait_for_load_state()
        assert page.url.split("#")[0] == live_server.url + dashboard

    assert seen == ["start_event", *ROUND_STEPS, *ROUND_STEPS, "finish_event"]
    assert list(Round.objects.filter(event=event).values_list("number", "status")) == [
        (1, RoundStatus.CLOSED),
        (2, RoundStatus.CLOSED),
    ]

    # Finishing needs the "I understand" box: without it the browser does not send it.
    finish = page.locator("#next-action").get_by_role("button", name=want["finish"])
    finish.click()
    page.wait_for_timeout(300)
    assert Event.objects.get(pk=event.pk).state == EventState.RUNNING
    page.locator("#next-action input[type=checkbox][name=confirm]").check()
    finish.click()
    page.wait_for_load_state()
    assert Event.objects.get(pk=event.pk).state == EventState.FINISHED
    seen.append("finished")
    look("finished")
    assert page.locator("#next-action").get_attribute("data-next") == "done"
    assert not problems, "\n".join(problems)
