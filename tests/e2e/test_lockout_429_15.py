"""The login lockout page and the deck check's "too many requests" answer in the browser
(issue #15, "Who gets in"): both shown in the reader's language at 390 px (Japanese) and
1366 px (English), with no sideways scrolling and no serious axe finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect
from rest_framework.throttling import AnonRateThrottle

from tests.e2e.axe import CASES, PageLook
from tests.tournaments.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/shots/lockout-429")


@pytest.mark.parametrize("case", list(CASES))
def test_lockout_and_throttle_pages(case, new_page, monkeypatch):
    size, locale, language = CASES[case]
    SHOTS.mkdir(parents=True, exist_ok=True)
    UserFactory(username="player", password="right-password-2026")
    page = new_page(locale)
    page.set_viewport_size(size)
    look = PageLook(page, case, size["width"], SHOTS)
    with translation.override(language):
        too_many = gettext(
            "You have sent too many requests in a short time. Please wait a moment and try again."
        )

    # Three wrong passwords with a limit of two: the third answer is the lockout page.
    with override_settings(AXES_FAILURE_LIMIT=2):
        for _ in range(3):
            page.goto("/accounts/login/")
            page.locator("input[name=username]").fill("player")
            page.locator("input[name=password]").fill("wrong")
            page.locator("form.form-stacked button[type=submit]").click()
            page.wait_for_load_state()
    expect(page.locator("main")).not_to_contain_text("wrong")
    assert page.locator("input[name=password]").count() == 0
    look("lockout")

    # One anonymous deck check a minute: the second live check shows the 429 message
    # in the report area (base.html tells htmx to swap a 429).
    monkeypatch.setattr(AnonRateThrottle, "rate", "1/min", raising=False)
    page.goto("/decks/check/")
    page.wait_for_function("window.htmx !== undefined")
    # An empty form is enough to be counted; htmx would not send it with required fields.
    page.evaluate(
        "document.querySelectorAll('[required]').forEach(e => e.removeAttribute('required'))"
    )
    for _ in range(2):
        page.evaluate(
            "htmx.ajax('POST', '/decks/check/', {source: 'form.deck-form', target: '#report'})"
        )
        page.wait_for_timeout(800)
    expect(page.locator("#report .too-many-requests")).to_contain_text(too_many)
    look("too-many-requests")
    assert not look.problems, look.problems
