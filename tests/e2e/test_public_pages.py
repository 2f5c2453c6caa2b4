"""The pages every phone in the hall polls, on a phone, in English and in Japanese: the
standings, a round's pairings (by table and by name), the event page and "my match".

One event of 450 players (three closed Swiss rounds and a running fourth) makes the long
lists come in pages of 200. A signed-in player, on a 390×844 viewport, opens each page and
checks that the page never scrolls sideways (a wide table scrolls inside its
``.table-wrap``), that the search finds a row, that the pager's Next link shows page 2,
that "Go to my row" lands on the player's own row (on page 2), and that axe-core finds no
WCAG 2.x A/AA violation (the axe-core bundled by axe-playwright-python; no npm). On a
200-row list axe looks at the whole page but rows 21-200 (the same markup again: all of
them would take most of a minute), and at the highlighted row "Go to my row" opens. Then
the opponent reports their match and the player sees the confirm/dispute forms.

Screenshots go to pytest's temporary directory and are copied to /tmp/shots/ for a human
to look at. Every page is checked before the test fails, so one run reports all problems.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import AXE, AXE_OPTIONS
from tests.tournaments.api import bulk
from tests.tournaments.factories import UserFactory, games_for
from tournaments import selectors, services
from tournaments.models import Match, Registration
from tournaments.snapshots import PAGE_SIZE

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = 450
PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/shots")
# Rows of a long table repeat the first rows' markup: axe looks at the first AXE_ROWS of
# a 200-row table (and all the rest of the page), which keeps the run to seconds.
AXE_ROWS = 20
FIRST_ROWS = {"exclude": [[f"tbody tr:nth-child(n+{AXE_ROWS + 1})"]]}
ME = ("Hanako", "Yamada")  # the signed-in player
OTHER = ("Taro", "Suzuki")  # a player on page 3 of the standings, found by the search


class Phone:
    """One signed-in player's phone in one language: takes screenshots and keeps what
    went wrong instead of stopping at the first problem."""

    def __init__(self, page, shots: Path, language: str):
        self.page = page
        self.shots = shots
        self.language = language
        self.problems: list[str] = []
        self.count = 0

    def shot(self, name: str, *, full_page: bool = False) -> None:
        self.count += 1
        path = self.shots / f"{self.language}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)

    def fits(self, name: str) -> None:
        """The page does not scroll sideways (a table may, inside its .table-wrap)."""
        page = self.page
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide = page.evaluate(
                """() => [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5
                            && (!e.closest('.table-wrap')
                                || getComputedStyle(e).position === 'absolute'))
                    .slice(0, 8)
                    .map(e => e.outerHTML.slice(0, 160))"""
            )
            self.problems.append(
                f"[{self.language}] {name}: the page is {width}px wide (> 390); "
                f"sticking out: {wide}"
            )

    def check(self, name: str, context: dict | None = None) -> None:
        """Fits the phone and passes axe-core's WCAG 2.x A/AA rules (in ``context``:
        axe's include/exclude selectors; the whole page by default)."""
        self.fits(name)
        results = AXE.run(self.page, context=context, options=AXE_OPTIONS)
        if results.violations_count:
            self.problems.append(
                f"[{self.language}] {name} ({self.page.url}): {results.generate_report()}"
            )

    def on_screen(self, row: str) -> None:
        """The first cell of ``row`` (a wide row scrolls sideways) is wholly on the
        phone's screen, once the page has settled."""
        expect(self.page.locator(f"{row} > :first-child")).to_be_in_viewport(ratio=1)


def find(page, text: str) -> None:
    """Search a list with its own form (label, box, button)."""
    form = page.get_by_role("search")
    form.get_by_role("searchbox").fill(text)
    form.locator("button[type=submit]").click()
    page.wait_for_load_state()


def rename(registration_id: int, names: tuple[str, str]):
    user = Registration.objects.get(pk=registration_id).player
    user.first_name, user.last_name = names
    user.save(update_fields=["first_name", "last_name"])
    return user


@pytest.fixture
def hall(crossover):
    """The event after three closed Swiss rounds, with round 4 running. The signed-in
    player is on page 2 of both the standings and round 3's tables, so "Go to my row"
    has to change page."""
    organizer = UserFactory(username="organizer")
    event = bulk.played_event(organizer, crossover, players=PLAYERS, rounds=3, name="Big Open")
    standing = [line.registration.pk for line in services.compute_standings(event).rows]
    round3 = Match.objects.filter(round__event=event, round__number=3)
    table_of = {m.player1_id: m.table for m in round3} | {
        m.player2_id: m.table for m in round3 if m.player2_id
    }
    # Well inside page 2 of the standings (a rename may move a player among ties).
    me = next(
        pk for pk in standing[PAGE_SIZE + 20 : 2 * PAGE_SIZE - 20] if table_of[pk] > PAGE_SIZE
    )
    other = standing[2 * PAGE_SIZE + 5]
    user = rename(me, ME)
    rename(other, OTHER)
    round4 = services.generate_round(event, actor=organizer)
    services.publish_round(round4, actor=organizer)
    services.start_round_clock(round4, actor=organizer)
    return {
        "event": event,
        "me": me,
        "username": user.username,
        "other": other,
        "standing": standing,
        "table": table_of[me],
    }


def standings_page(phone: Phone, hall: dict) -> None:
    page, event = phone.page, hall["event"]
    page.goto(f"/events/{event.pk}/standings/")
    phone.shot("standings")
    phone.check("standings", FIRST_ROWS)
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == PAGE_SIZE
    # The tiebreak columns are off the phone's edge: the table scrolls in its box.
    page.locator(".table-wrap").evaluate("wrap => { wrap.scrollLeft = 10000; }")
    phone.shot("standings-scrolled")
    page.locator(".table-wrap").evaluate("wrap => { wrap.scrollLeft = 0; }")

    # The pager: Next shows rows 201-400.
    page.locator("nav.pagination a[rel=next]").click()
    page.wait_for_url("**/standings/?page=2")
    assert rows.first.get_attribute("id") == f"player-{hall['standing'][PAGE_SIZE]}"
    assert rows.count() == PAGE_SIZE
    page.locator("nav.pagination").scroll_into_view_if_needed()
    phone.shot("standings-pager")
    phone.fits("standings page 2")

    # The search finds a player on page 3.
    find(page, "suzuki")
    assert rows.count() == 1
    assert rows.first.get_attribute("id") == f"player-{hall['other']}"
    assert "Taro Suzuki" in rows.first.inner_text()
    assert page.get_by_role("status").is_visible()
    phone.shot("standings-search")
    phone.check("standings search")

    # "Go to my row" from page 1 opens page 2 at the player's row.
    page.goto(f"/events/{event.pk}/standings/")
    page.locator(".my-row a").click()
    mine = f"#player-{hall['me']}"
    page.wait_for_url(f"**/standings/?page=2{mine}")
    assert "Hanako Yamada" in page.locator(mine).inner_text()
    phone.on_screen(mine)
    phone.shot("standings-my-row")
    phone.check("standings my row", {"include": [[mine]]})


def pairings_page(phone: Phone, hall: dict) -> None:
    page, event = phone.page, hall["event"]
    page.goto(f"/events/{event.pk}/rounds/3/pairings/")
    phone.shot("pairings")
    phone.check("pairings", FIRST_ROWS)
    rows = page.locator("table.pairings tbody tr")
    assert rows.count() == PAGE_SIZE

    page.locator("nav.pagination a[rel=next]").click()
    page.wait_for_url("**/rounds/3/pairings/?page=2")
    assert rows.first.get_attribute("id") == f"table-{PAGE_SIZE + 1}"
    phone.fits("pairings page 2")

    # Search by name, then by table number.
    find(page, "suzuki")
    assert rows.count() == 1
    assert "Taro Suzuki" in rows.first.inner_text()
    phone.shot("pairings-search")
    phone.check("pairings search")
    find(page, str(hall["table"]))
    assert rows.count() == 1
    assert rows.first.get_attribute("id") == f"table-{hall['table']}"

    # "Go to my table" from page 1 opens page 2 at the player's table.
    page.goto(f"/events/{event.pk}/rounds/3/pairings/")
    page.locator(".my-row a").click()
    mine = f"#table-{hall['table']}"
    page.wait_for_url(f"**/rounds/3/pairings/?page=2{mine}")
    assert "Hanako Yamada" in page.locator(mine).inner_text()
    phone.on_screen(mine)
    phone.shot("pairings-my-table")
    phone.check("pairings my table", {"include": [[mine]]})

    # By name: 449 lines, three pages; the search keeps the order.
    page.goto(f"/events/{event.pk}/rounds/3/pairings/?by=name")
    phone.shot("pairings-by-name")
    phone.check("pairings by name", FIRST_ROWS)
    page.locator("nav.pagination a[rel=next]").click()
    page.wait_for_url("**/rounds/3/pairings/?by=name&page=2")
    assert rows.count() == PAGE_SIZE
    find(page, "yamada")
    assert "by=name" in page.url
    # The player's line and their opponent's (the whole match).
    assert rows.count() == 2
    # each name with its points and record going into the round
    names = rows.locator("td:first-child").all_inner_texts()
    assert any(name.startswith("Hanako Yamada ") and "0-2-0" in name for name in names)
    phone.fits("pairings by name search")


def event_page(phone: Phone, hall: dict) -> None:
    page = phone.page
    page.goto(f"/events/{hall['event'].pk}/")
    assert page.locator("#my-status").is_visible()  # the player's own status first
    assert page.locator("dl.facts").first.is_visible()
    phone.shot("event", full_page=True)
    phone.check("event")


def my_match_page(phone: Phone, hall: dict, *, state: str) -> None:
    page = phone.page
    page.goto(f"/events/{hall['event'].pk}/me/match/")
    if state == "report":
        # one tap per result, from the player's own side
        assert page.locator(".match-report .choice-grid a").first.is_visible()
    else:
        assert page.locator("textarea").is_visible()
    phone.shot(f"my-match-{state}", full_page=True)
    phone.check(f"my match ({state})")


def opponent_reports(hall: dict) -> None:
    """The opponent reports 2-1 for themselves on round 4."""
    match = selectors.current_match(hall["me"])
    opponent = match.player2 if match.player1_id == hall["me"] else match.player1
    record = "2-1" if opponent.pk == match.player1_id else "1-2"
    services.report_result(
        match, actor=opponent.player, games=games_for(record), expected_version=match.version
    )


def test_public_pages_on_a_phone(new_page, log_in, hall, tmp_path):
    phones = []
    for language in ("en", "ja"):
        page = new_page()
        page.set_viewport_size(PHONE)
        log_in(page, hall["username"], "pw")
        if language == "ja":
            # The site's own language form, as a player switches.
            page.goto(f"/events/{hall['event'].pk}/")
            # On a phone the language switch sits in the collapsed menu.
            page.locator(".site-menu > summary").click()
            page.locator("#language-select").select_option("ja")
            page.locator("form.language button[type=submit]").click()
            page.wait_for_load_state()
            assert page.locator("html").get_attribute("lang") == "ja"
        phones.append(Phone(page, tmp_path, language))
    try:
        for phone in phones:
            standings_page(phone, hall)
            pairings_page(phone, hall)
            event_page(phone, hall)
            my_match_page(phone, hall, state="report")
        opponent_reports(hall)
        for phone in phones:
            my_match_page(phone, hall, state="answer")
    finally:
        SHOTS.mkdir(exist_ok=True)
        for shot in tmp_path.glob("*.png"):
            shutil.copy(shot, SHOTS / shot.name)
    problems = [problem for phone in phones for problem in phone.problems]
    assert not problems, "\n\n".join(problems)
