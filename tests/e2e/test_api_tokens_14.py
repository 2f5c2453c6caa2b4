"""API tokens in a real browser (#14): at 390×844 in Japanese and at 1366×900 in English.

The organizer makes a personal read-only token on "API tokens", sees its secret once,
uses it from a script (the API answers), finds it listed with its last use and without
the secret, and revokes it (the API then refuses it). In the event's staff pages the
organizer makes a token for that event only. Every page looked at must not scroll
sideways and axe-core must find no serious or critical WCAG 2.2 A/AA violation.
Screenshots: /tmp/shots/tokens/ (not committed).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect
from rest_framework.test import APIClient

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import CASES, PageLook
from tests.tournaments.factories import UserFactory, open_event
from tournaments.models import ApiToken

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/tokens")
PASSWORD = "a-long-pass-2026"


def api_status(secret: str, url: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client.get(url).status_code


@pytest.mark.parametrize("case", list(CASES))
def test_make_see_once_use_and_revoke_a_token(case, crossover, new_page):
    size, locale, language = CASES[case]
    UserFactory(username="organizer", password=PASSWORD)
    organizer = UserFactory._meta.model.objects.get(username="organizer")
    event = open_event(organizer, crossover, name="Spring Cup")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(locale)
    page.set_viewport_size(size)
    look = PageLook(page, case, size["width"], SHOTS)
    problems = look.problems

    with translation.override(language):
        create = gettext("Create a token")
        read_only = gettext("Read only")
        shown_once = gettext("Copy it now: it is shown only this once.")
        back = gettext("Done: back to the tokens")
        revoke = gettext("Revoke")
        never = gettext("Never")
        revoked = gettext("Token “%(name)s” revoked.") % {"name": "Discord bot"}
        no_token = gettext("No token yet.")

    page.goto("/accounts/login/")
    page.locator("input[name=username]").fill("organizer")
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()

    page.goto(reverse("tokens:account_tokens"))
    expect(page.locator("main")).to_contain_text(no_token)
    look("empty")
    form = page.locator("form.token-form")
    form.locator("input[name=name]").fill("Discord bot")
    form.get_by_label(read_only).check()
    form.get_by_role("button", name=create).click()
    page.wait_for_load_state()
    expect(page.locator("main")).to_contain_text(shown_once)
    secret = page.locator("#new-token").input_value()
    assert secret.startswith("cot_")
    look("shown-once")

    # The script's side: the token reads the API as the organizer.
    assert api_status(secret, f"/api/v1/events/{event.pk}/") == 200

    page.get_by_role("link", name=back).click()
    page.wait_for_load_state()
    rows = page.locator("table.tokens tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Discord bot")
    expect(rows.first).not_to_contain_text(never)  # used once already
    assert secret.split("_", 2)[2] not in page.content()
    look("listed")

    rows.first.get_by_role("button", name=revoke).click()
    page.wait_for_load_state()
    expect(page.locator("main .messages")).to_contain_text(revoked)
    expect(page.locator("table.tokens")).to_have_count(0)
    look("revoked")
    assert api_status(secret, f"/api/v1/events/{event.pk}/") == 401

    # A token for one event, from its staff pages.
    page.goto(reverse("tournaments:event_tokens", args=[event.pk]))
    look("event-empty")
    form = page.locator("form.token-form")
    form.locator("input[name=name]").fill("Stream overlay")
    form.get_by_role("button", name=create).click()
    page.wait_for_load_state()
    event_secret = page.locator("#new-token").input_value()
    look("event-shown-once")
    page.get_by_role("link", name=back).click()
    page.wait_for_load_state()
    expect(page.locator("table.tokens tbody tr")).to_have_count(1)
    look("event-listed")
    assert api_status(event_secret, f"/api/v1/events/{event.pk}/standings/") == 200

    token = ApiToken.objects.get(revoked_at__isnull=True)
    assert (token.event_id, token.scope, token.name) == (event.pk, "read", "Stream overlay")
    assert not problems, "\n".join(problems)
