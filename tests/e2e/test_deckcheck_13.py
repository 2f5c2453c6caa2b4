"""A judge deck checks a player at the table, in a real browser (issue #13, rule 1−2−4): at
390×844 in Japanese and at 1366×900 in English.

The judge opens the deck checks from the staff pages, finds the player by name, counts
the cards with the + and − buttons (the player swapped one 狡猾フィーリア in from the
sideboard for a スワティ, and one スワティ is missing from the table), compares and sees
every discrepancy, then issues the penalty from the check in one step (the form is filled
in: "deck does not match decklist", the discrepancies as the note). A second player's
legal swap is OK. Every page looked at must not scroll sideways and axe-core must find no
serious or critical WCAG 2.2 A/AA violation. Screenshots: /tmp/shots/deckcheck/ (not
committed).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import CASES, PageLook
from tests.tournaments.factories import UserFactory, open_event, register_all
from tournaments import infractions, services
from tournaments.models import DeckCheck, Match, Penalty, PenaltyKind

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/deckcheck")
PASSWORD = "a-long-pass-2026"
REGISTERED = (
    "4 森原 さとみ\n2 狡猾フィーリア [base]\n44 スワティ\n"
    "サイドボード\n2 狡猾フィーリア [base]\n3 スワティ\n"
)


@pytest.fixture
def running(crossover):
    infractions.load_builtin_infractions()
    organizer = UserFactory(username="organizer", password=PASSWORD)
    judge = UserFactory(username="judge", password=PASSWORD)
    event = open_event(organizer, crossover, name="Spring Cup", swiss_rounds=3)
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    players = [
        UserFactory(username=name, first_name=first, last_name="Test")
        for name, first in (("hanako", "Hanako"), ("kenji", "Kenji"), ("mika", "Mika"))
    ]
    players.append(UserFactory(username="sora", first_name="Sora", last_name="Test"))
    register_all(event, players, REGISTERED)
    services.start_event(event, actor=organizer)
    services.publish_round(services.generate_round(event, actor=organizer), actor=organizer)
    return event, players


@pytest.mark.parametrize("case", list(CASES))
def test_judge_counts_a_deck_on_the_phone_and_penalises_the_difference(
    case, running, new_page, live_server
):
    size, locale, language = CASES[case]
    event, players = running
    hanako = players[0]
    registration = hanako.event_registrations.get(event=event)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(locale)
    page.set_viewport_size(size)
    look = PageLook(page, case, size["width"], SHOTS)
    problems = look.problems

    with translation.override(language):
        deck_checks_link = gettext("Deck checks")
        new_check = gettext("New deck check")
        compare = gettext("Compare with the list")
        issue = gettext("Issue a penalty for this deck check")
        ok_text = gettext("OK: the deck and sideboard are the registered list.")
        game_loss = str(PenaltyKind.GAME_LOSS.label)
        deck_one_more = gettext("one more %(card)s in the deck") % {
            "card": "狡猾フィーリア [" + ("基本セット") + "]"
        }
        deck_one_fewer_swati = gettext("one fewer %(card)s in the deck") % {"card": "スワティ"}
        side_one_fewer = gettext("one fewer %(card)s in the sideboard") % {
            "card": "狡猾フィーリア [基本セット]"
        }
        side_one_more_swati = gettext("one more %(card)s in the sideboard") % {"card": "スワティ"}
        expected_missing = "不足: 〔スワティ〕" if language == "ja" else "Missing: 1 × スワティ"

    page.goto("/accounts/login/")
    page.locator("input[name=username]").fill("judge")
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()

    # From the staff pages to the deck checks, then find the player by name.
    page.goto(reverse("tournaments:audit_log", args=[event.pk]))
    page.locator("nav.staff-nav").get_by_role("link", name=deck_checks_link).click()
    page.wait_for_load_state()
    look("list-empty")
    page.get_by_role("link", name=new_check).first.click()
    page.wait_for_load_state()
    page.locator("input[name=q]").fill("hanako")
    page.locator("form.deckcheck-search button[type=submit]").click()
    page.wait_for_load_state()
    look("pick")
    page.locator("ul.deckcheck-players a").first.click()
    page.wait_for_load_state()
    expect(page.locator("h1")).to_contain_text("Hanako Test")

    # Count with the buttons: one more 狡猾フィーリア in the deck, one fewer in the
    # sideboard (swapped in), two fewer スワティ in the deck and one more in the sideboard
    # (one swapped out, one missing).
    form = page.locator("form.deckcheck-count-form")
    totals = form.locator("[data-deckcheck-totals]")
    expect(totals).to_be_visible()
    form.get_by_role("button", name=deck_one_more).click()
    form.get_by_role("button", name=side_one_fewer).click()
    form.get_by_role("button", name=deck_one_fewer_swati).click()
    form.get_by_role("button", name=deck_one_fewer_swati).click()
    form.get_by_role("button", name=side_one_more_swati).click()
    expect(form.locator("input[name=count-card1_main]")).to_have_value("3")
    expect(form.locator("input[name=count-card1_side]")).to_have_value("1")
    expect(form.locator("input[name=count-card2_main]")).to_have_value("42")
    expect(form.locator("input[name=count-card2_side]")).to_have_value("4")
    expect(totals.locator('[data-total="main"]')).to_have_text("49")
    expect(totals.locator('[data-total="side"]')).to_have_text("5")
    expect(form.locator("li.deckcheck-card.is-changed")).to_have_count(2)
    look("counting")
    form.get_by_role("button", name=compare).click()
    page.wait_for_load_state()
    check = DeckCheck.objects.get(registration=registration)
    assert check.ok is False
    assert [d["code"] for d in check.result["discrepancies"]] == ["DECK_SIZE_CHANGED", "MISSING"]
    expect(page.locator("ul.deckcheck-discrepancies li")).to_have_count(2)
    expect(page.locator("ul.deckcheck-discrepancies")).to_contain_text(expected_missing)
    look("result")

    # One step to the penalty: the form is filled in.
    page.get_by_role("link", name=issue).click()
    page.wait_for_load_state()
    mismatch = infractions.find(event, "deck_mismatch")
    expect(page.locator("select[name=penalty-infraction]")).to_have_value(str(mismatch.pk))
    match = Match.objects.get(round__event=event, participants__registration=registration)
    expect(page.locator("select[name=penalty-match]")).to_have_value(str(match.pk))
    expect(page.locator("textarea[name=penalty-note]")).to_contain_text(expected_missing)
    look("penalty-form")
    page.locator("form.penalty-form button[type=submit]").click()
    page.wait_for_load_state()
    expect(page.locator("main")).to_contain_text(game_loss)
    look("penalised")
    penalty = Penalty.objects.get(registration=registration)
    assert (penalty.deck_check_id, penalty.kind) == (check.pk, "game_loss")

    # Another player swapped legally: OK.
    kenji = players[1].event_registrations.get(event=event)
    page.goto(reverse("tournaments:deck_check_new", args=[event.pk, kenji.pk]))
    form = page.locator("form.deckcheck-count-form")
    form.get_by_role("button", name=deck_one_more).click()
    form.get_by_role("button", name=side_one_fewer).click()
    form.get_by_role("button", name=deck_one_fewer_swati).click()
    form.locator("input[name=count-card2_side]").fill("4")
    form.get_by_role("button", name=compare).click()
    page.wait_for_load_state()
    expect(page.locator(".verdict")).to_contain_text(ok_text)
    look("ok")

    page.goto(reverse("tournaments:deck_check_list", args=[event.pk]))
    expect(page.locator("table.deckchecks tbody tr")).to_have_count(2)
    look("list")

    page.goto(reverse("tournaments:match_slips", args=[event.pk, 1]))
    expect(page.locator(".slip-sideboard").first).to_be_visible()
    look("slips")
    assert not problems, "\n".join(problems)
