"""An existing account joins an imported event only by its owner's choice (#21), in a real
browser at 390×844 in Japanese and 1366×900 in English: the organizer imported a file
naming "kenji" (a placeholder of the event, not the site's kenji), makes a claim link;
kenji, signed in on their phone, opens it and presses "Add to kenji"; the event's
registration is then theirs. No sideways scrolling, no serious axe-core finding.
Screenshots: /tmp/shots/claim-accept/ (not committed)."""

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
from tests.e2e.axe import CASES, PageLook
from tests.tournaments.factories import UserFactory, open_event, register_all
from tournaments.models import FileIdentity, Registration

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/claim-accept")
PASSWORD = "a-long-pass-2026"


@pytest.fixture
def imported(crossover):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    kenji = UserFactory(username="kenji", password=PASSWORD)
    event = open_event(organizer, crossover, name="Harbour Cup")
    ghost = UserFactory(username="kenji+3fa2c1")
    registration = register_all(event, [ghost])[0]
    get_user_model().objects.filter(pk=ghost.pk).update(
        is_active=False, password=make_password(None), last_login=None
    )
    FileIdentity.objects.create(event=event, name="kenji", user=ghost)
    return event, registration, kenji


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()


@pytest.mark.parametrize("case", list(CASES))
def test_owner_adds_imported_entry_to_their_account(case, imported, new_page):
    size, locale, language = CASES[case]
    event, registration, kenji = imported
    SHOTS.mkdir(parents=True, exist_ok=True)
    with translation.override(language):
        make_label = gettext("Make a claim link")
        add_label = gettext("Add to %(current)s") % {"current": "kenji"}
        moved = gettext("The event's records are now on your account.")

    staff = new_page(locale)
    staff.set_viewport_size(size)
    look_staff = PageLook(staff, case, size["width"], SHOTS)
    sign_in(staff, "organizer")
    staff.goto(reverse("tournaments:player_detail", args=[event.pk, registration.pk]))
    staff.get_by_role("button", name=make_label).click()
    staff.wait_for_load_state()
    link = staff.locator("#claim-url").input_value()

    player = new_page(locale)
    player.set_viewport_size(size)
    look = PageLook(player, case, size["width"], SHOTS)
    sign_in(player, "kenji")
    player.goto(link)
    look("claim-signed-in")
    player.get_by_role("button", name=add_label).click()
    player.wait_for_load_state()
    expect(player.locator("body")).to_contain_text(moved)
    look("added")
    look_staff("staff-after")
    assert Registration.objects.get(pk=registration.pk).player == kenji
    assert not look.problems + look_staff.problems, "\n".join(look.problems + look_staff.problems)
