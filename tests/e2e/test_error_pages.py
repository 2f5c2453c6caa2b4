"""The 404, 403 and "send the form again" (CSRF) pages in the browser: in the reader's
language at 390 px (Japanese) and 1366 px (English), no sideways scrolling, no serious axe
finding, and a way on (the events, the home page)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.e2e.axe import CASES, PageLook
from tests.tournaments.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/shots/error-pages")


@pytest.mark.parametrize("case", list(CASES))
def test_error_pages(case, new_page):
    size, locale, language = CASES[case]
    SHOTS.mkdir(parents=True, exist_ok=True)
    UserFactory(username="outsider", password="pw")
    page = new_page(locale)
    page.set_viewport_size(size)
    look = PageLook(page, case, size["width"], SHOTS)
    with translation.override(language):
        not_found, not_allowed, again, events = (
            gettext("Page not found"),
            gettext("Not allowed"),
            gettext("Please send the form again"),
            gettext("See the events"),
        )

    response = page.goto("/events/999999/")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text(not_found)
    look("404")
    page.get_by_role("link", name=events).click()
    page.wait_for_url("**/events/")

    page.goto(reverse("login"))
    page.locator("input[name=username]").fill("outsider")
    page.locator("input[name=password]").fill("pw")
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    response = page.goto(reverse("venue_poster"))
    assert response.status == 403
    expect(page.get_by_role("heading", level=1)).to_have_text(not_allowed)
    look("403")

    # A form whose token went stale (the session changed in another tab).
    page.goto(reverse("tournaments:event_create"))
    form = page.locator("main form[method=post]").last
    form.locator("input[name=csrfmiddlewaretoken]").evaluate(
        "input => input.value = 'x'.repeat(64)"
    )
    # submit() skips the browser's own required-field check: the server answers.
    with page.expect_navigation():
        form.evaluate("form => form.submit()")
    page.wait_for_load_state()
    expect(page.get_by_role("heading", level=1)).to_have_text(again)
    look("csrf")
    assert not look.problems, look.problems
