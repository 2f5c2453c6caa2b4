"""A new player's event, in a real browser, at 390×844 (a phone) and 1366×900 (a laptop),
in English and in Japanese (issue #11's proof).

Everything the players and the organizer do goes through the pages: the new player signs
up, saves a deck under "My decks", finds the event on the home page and registers with
that saved deck. Their home page stays open while the organizer publishes round 1: the
table and opponent appear on it without a reload. From the home page they report a 2-1
win in three taps (the match, "2–1 win", "Report 2–1 win"); the opponent confirms in one
tap. The other match is played the same way; the organizer closes the round, pairs the
top 2 and finishes the event, and the new player — second after the Swiss round, winner
of the final — is first on the standings page, in the API and in the CSV download, with
the champion banner on the event page.

On every page the new player sees, the page must not scroll sideways and axe-core must
find no serious or critical WCAG 2.2 A/AA violation. Screenshots go to
/tmp/shots/player-phone/ (not committed) for a human to look at. The database is only
read: to find who was paired with whom (the pairing is random) and to check end states.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, pgettext
from playwright.sync_api import expect

from decks.models import Deck
from tests.decks import conftest as deck_fixtures
from tests.decks.conftest import LEGAL_DECK
from tests.e2e.axe import serious_violations
from tests.tournaments.factories import UserFactory, open_event, register_all
from tournaments.models import Event, Match, MatchStatus, Registration

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 900}}
LOCALES = {"en": "en-US", "ja": "ja-JP"}
SHOTS = Path("/tmp/shots/player-phone")
HERO = "hanako"
PASSWORD = "a-long-pass-2026"
OTHERS = ("kenji", "mika", "sora")


class Eyes:
    """What the new player's browser saw: screenshots, and every problem found (the
    test fails at the end with all of them)."""

    def __init__(self, page, size: str, language: str):
        self.page = page
        self.size = size
        self.language = language
        self.width = SIZES[size]["width"]
        self.count = 0
        self.problems: list[str] = []
        SHOTS.mkdir(parents=True, exist_ok=True)

    def look(self, name: str) -> None:
        """Screenshot, no sideways scroll, and axe-core's serious/critical findings."""
        page = self.page
        page.wait_for_load_state()
        self.count += 1
        prefix = f"{self.size}-{self.language}-{self.count:02d}-{name}"
        page.screenshot(path=str(SHOTS / f"{prefix}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > self.width:
            self.problems.append(f"{prefix}: the page is {width}px wide (> {self.width})")
        if serious := serious_violations(page):
            self.problems.append(f"{prefix} ({page.url}): {'; '.join(serious)}")


def texts(language: str):
    """The page texts the test looks for, from the site's own catalogue."""
    with translation.override(language):
        return {
            "champion": pgettext("top cut result", "Champion"),
            "report_result": gettext("Report result"),
        }


class Organizer:
    def __init__(self, page, event_id: int):
        self.page = page
        self.event_id = event_id

    def press(self, url_name: str, *args) -> None:
        url = reverse(f"tournaments:{url_name}", args=[self.event_id, *args])
        self.page.goto(reverse("tournaments:dashboard", args=[self.event_id]))
        form = self.page.locator(f'form[action="{url}"]').first
        for box in form.locator("input[type=checkbox][required]").all():
            box.check()  # the "I understand" box of an irreversible step (finish)
        form.locator("button[type=submit]").click()
        self.page.wait_for_load_state()

    def round_action(self, number: int, action: str) -> None:
        self.press("round_action", number, action)


def match_of(event_id: int, number: int, username: str) -> Match:
    return (
        Match.objects.select_related("player1__player", "player2__player")
        .filter(round__event_id=event_id, round__number=number)
        .filter(participants__registration__player__username=username)
        .get()
    )


def opponent_of(match: Match, username: str) -> str:
    one, two = match.player1.player.username, match.player2.player.username
    return two if one == username else one


def report_in_three_taps(page, event_id: int, record: str) -> int:
    """From the home page: the match's button, the result's button, the report button.
    Returns the number of taps."""
    page.goto("/")
    taps = 0
    page.locator("#my-events .button--primary").first.click()
    taps += 1
    page.wait_for_load_state()
    page.locator(f'.match-report a[href*="?report={record}#"]').click()
    taps += 1
    page.wait_for_load_state()
    page.locator('.match-report form[action$="/report/"] button[type=submit]').click()
    taps += 1
    page.wait_for_load_state()
    return taps


def confirm_in_one_tap(page, event_id: int, match: Match) -> None:
    page.goto(reverse("tournaments:match", args=[event_id, match.pk]))
    page.locator('.match-answer form[action$="/confirm/"] button[type=submit]').click()
    page.wait_for_load_state()


COMBINATIONS = [("phone", "en"), ("phone", "ja"), ("laptop", "en"), ("laptop", "ja")]


@pytest.mark.parametrize(("size", "language"), COMBINATIONS, ids=lambda value: value)
def test_a_new_player_s_event(size, language, new_page, log_in, crossover, settings, live_server):
    settings.LIVE_POLL_SECONDS = 1  # the phones' poll interval (20 s by default)
    want = texts(language)
    organizer_user = UserFactory(username="organizer")
    others = [UserFactory(username=name) for name in OTHERS]
    event = open_event(
        organizer_user, crossover, name="Hall Cup", swiss_rounds=1, top_cut_size=2, capacity=8
    )
    register_all(event, others)

    def phone(username: str | None = None):
        page = new_page(locale=LOCALES[language])
        page.set_viewport_size(SIZES[size])
        if username:  # the login form, in the page's language
            page.goto(reverse("login"))
            page.locator("#id_username").fill(username)
            page.locator("#id_password").fill("pw")
            page.locator("main form button[type=submit]").click()
            page.wait_for_load_state()
        return page

    hero = phone()
    eyes = Eyes(hero, size, language)

    # --- sign up, save a deck, register with it -----------------------------------------
    hero.goto("/")
    eyes.look("home-visitor")
    hero.locator(".welcome a[href^='/accounts/signup/']").click()
    hero.locator("#id_username").fill(HERO)
    hero.locator("#id_password1").fill(PASSWORD)
    hero.locator("#id_password2").fill(PASSWORD)
    hero.locator("main form button[type=submit]").click()
    hero.wait_for_load_state()
    assert hero.url == live_server.url + "/"
    hero.goto(reverse("decks:deck_create"))
    hero.locator("#id_name").fill("Fire")
    hero.locator("#id_format").select_option(crossover.slug)
    hero.locator("#id_decklist").fill(LEGAL_DECK)
    hero.locator("main form button[type=submit]").click()
    hero.wait_for_load_state()
    deck = Deck.objects.get(owner__username=HERO)

    hero.goto("/")
    hero.locator(f'#upcoming-events a[href="/events/{event.pk}/"]').first.click()
    hero.wait_for_load_state()
    eyes.look("event-before-registering")
    hero.locator(f'main a[href="/events/{event.pk}/register/"]').first.click()
    hero.wait_for_load_state()
    hero.locator("#id_deck").select_option(str(deck.pk))
    eyes.look("register-with-saved-deck")
    hero.locator("main form.deck-form button[type=submit]").click()
    hero.wait_for_load_state()
    registration = Registration.objects.get(event=event, player__username=HERO)
    assert (registration.status, registration.deck_id) == ("registered", deck.pk)
    assert registration.deck_report["legal"] is True

    # --- round 1: the pairing appears on the open home page without a reload --------------
    organizer = Organizer(phone("organizer"), event.pk)
    organizer.press("event_transition", "start")
    organizer.press("generate_round")
    hero.goto("/")
    hero.evaluate("window.notReloaded = true")
    organizer.round_action(1, "publish")
    first = match_of(event.pk, 1, HERO)
    rival = opponent_of(first, HERO)
    expect(hero.locator("#my-events")).to_contain_text(rival, timeout=15_000)
    expect(hero.locator("#my-events .button--primary")).to_have_text(want["report_result"])
    assert hero.evaluate("window.notReloaded") is True
    eyes.look("home-round-1-published")
    organizer.round_action(1, "start")

    # The player's pages of the running round.
    for name, url in (
        ("event-running", reverse("tournaments:event_detail", args=[event.pk])),
        ("pairings", reverse("tournaments:pairings", args=[event.pk, 1])),
        ("clock", reverse("tournaments:round_clock", args=[event.pk, 1])),
        ("my-match", reverse("tournaments:my_match", args=[event.pk])),
    ):
        hero.goto(url)
        eyes.look(name)
    hero.goto(reverse("tournaments:match", args=[event.pk, first.pk]) + "?report=2-1")
    eyes.look("match-chosen-2-1")

    # --- a 2-1 win in three taps from home; the opponent confirms in one ------------------
    assert report_in_three_taps(hero, event.pk, "2-1-0") == 3
    eyes.look("match-reported")
    first.refresh_from_db()
    hero_first = first.player1.player.username == HERO
    assert first.status == MatchStatus.REPORTED
    assert (first.wins, first.losses) == ((2, 1) if hero_first else (1, 2))
    rival_page = phone(rival)
    confirm_in_one_tap(rival_page, event.pk, first)
    first.refresh_from_db()
    assert first.status == MatchStatus.CONFIRMED

    # The other table: 2-0, so its winner goes into the top 2 ahead of the new player.
    other = next(m for m in Match.objects.filter(round__event=event, round__number=1) if m != first)
    winner, loser = other.player1.player.username, other.player2.player.username
    winner_page = phone(winner)
    report_in_three_taps(winner_page, event.pk, "2-0-0")
    confirm_in_one_tap(phone(loser), event.pk, other)
    other.refresh_from_db()
    assert other.status == MatchStatus.CONFIRMED
    organizer.round_action(1, "close")

    # --- the final: the second seed wins it ------------------------------------------------
    organizer.press("generate_top_cut")
    organizer.round_action(2, "publish")
    final = match_of(event.pk, 2, HERO)
    assert opponent_of(final, HERO) == winner
    organizer.round_action(2, "start")
    assert report_in_three_taps(hero, event.pk, "2-0-0") == 3
    confirm_in_one_tap(winner_page, event.pk, final)
    organizer.round_action(2, "close")
    organizer.press("event_transition", "finish")
    assert Event.objects.get(pk=event.pk).state == "finished"

    # --- the champion first: page, API, CSV; the banner -----------------------------------
    hero.goto(reverse("tournaments:standings", args=[event.pk]))
    eyes.look("standings-final")
    first_row = hero.locator("table.standings tbody tr").first
    expect(first_row).to_contain_text(HERO)
    expect(first_row).to_contain_text(want["champion"])
    api = hero.request.get(f"/api/v1/events/{event.pk}/standings/").json()
    top = [(row["name"], row["placing"], row["top_cut_result"]) for row in api["rows"][:2]]
    assert top == [(HERO, 1, "champion"), (winner, 2, "finalist")]
    assert api["rows"][0]["rank"] == 2  # second after the Swiss round
    with hero.expect_download() as download:
        hero.locator(f'a[href="/events/{event.pk}/export/standings.csv"]').first.click()
    rows = list(csv.reader(io.StringIO(download.value.path().read_bytes().decode("utf-8-sig"))))
    name_column = rows[1].index(HERO)  # the champion's row comes first
    assert rows[2][name_column] == winner
    hero.goto(reverse("tournaments:event_detail", args=[event.pk]))
    expect(hero.locator(".banner--champion")).to_contain_text(HERO)
    eyes.look("event-finished")
    hero.goto(reverse("tournaments:bracket", args=[event.pk]))
    eyes.look("bracket")
    hero.goto("/")
    eyes.look("home-after")
    assert not eyes.problems, "\n".join(eyes.problems)
