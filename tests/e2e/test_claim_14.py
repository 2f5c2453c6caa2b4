"""Claiming a placeholder account (#14) in a real browser, at 390×844 in Japanese and at
1366×900 in English: the organizer makes a claim link on the staff player page, the player
opens it on their own phone, sets a password and is signed in; the spent link then
refuses. Every page looked at must not scroll sideways and axe-core must find no serious
or critical violation. Screenshots: /tmp/shots/claim/ (not committed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import CASES, serious_violations
from tests.tournaments.factories import UserFactory, open_event, register_all
from tournaments.models import FileIdentity

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/claim")
PASSWORD = "a-long-pass-2026"
NEW_PASSWORD = "violet-harbour-lantern-58"


@pytest.fixture
def imported(crossover):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    event = open_event(organizer, crossover, name="Harbour Cup")
    ghost = UserFactory(username="ghost-player", first_name="Aoi")
    registration = register_all(event, [ghost])[0]
    # As an event-file import leaves an unknown username: inactive, no password.
    get_user_model().objects.filter(pk=ghost.pk).update(
        is_active=False, password=make_password(None), last_login=None
    )
    # ... and it belongs to the event whose import made it (#21).
    FileIdentity.objects.create(event=event, name="ghost-player", user=ghost)
    return event, registration


@pytest.mark.parametrize("case", list(CASES))
def test_player_claims_placeholder_account(case, imported, new_page):
    size, locale, language = CASES[case]
    event, registration = imported
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    count = 0

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

    with translation.override(language):
        make_label = gettext("Make a claim link")
        claim_button = gettext("Claim the account")
        ready = gettext("Your account is ready, and you are signed in.")
        used = gettext("This claim link has been used already. Sign in with your password.")

    staff = new_page(locale)
    staff.set_viewport_size(size)
    staff.goto("/accounts/login/")
    staff.locator("input[name=username]").fill("organizer")
    staff.locator("input[name=password]").fill(PASSWORD)
    staff.locator("main form button[type=submit]").click()
    staff.wait_for_load_state()
    staff.goto(reverse("tournaments:player_detail", args=[event.pk, registration.pk]))
    look(staff, "player-page")
    staff.get_by_role("button", name=make_label).click()
    staff.wait_for_load_state()
    link = staff.locator("#claim-url").input_value()
    assert "/accounts/claim/" in link
    expect(staff.locator("svg.qr-code")).to_have_attribute("data-url", link)
    look(staff, "link-shown")

    player = new_page(locale)
    player.set_viewport_size(size)
    player.goto(link)
    expect(player.locator("main")).to_contain_text("ghost-player")
    look(player, "claim-form")
    player.locator("input[name=password1]").fill(NEW_PASSWORD)
    player.locator("input[name=password2]").fill(NEW_PASSWORD)
    player.locator("input[name=email]").fill("aoi@example.org")
    player.get_by_role("button", name=claim_button).click()
    player.wait_for_load_state()
    expect(player.locator("body")).to_contain_text(ready)
    look(player, "claimed")

    again = new_page(locale)
    again.set_viewport_size(size)
    again.goto(link)
    expect(again.locator("main")).to_contain_text(used)
    look(again, "link-used")

    user = get_user_model().objects.get(username="ghost-player")
    assert (user.is_active, user.email, user.check_password(NEW_PASSWORD)) == (
        True,
        "aoi@example.org",
        True,
    )
    assert not problems, "\n".join(problems)
