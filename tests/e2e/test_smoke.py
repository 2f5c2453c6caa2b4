"""The browser can reach the live site, sign in and switch language."""

import pytest

from tests.tournaments.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_in_and_switch_to_japanese(new_page, log_in):
    UserFactory(username="alice")
    page = new_page()
    log_in(page, "alice", "pw")
    assert page.get_by_role("button", name="Log out").is_visible()
    page.goto("/events/")
    assert page.get_by_role("heading", level=1).inner_text() == "Events"
    page.get_by_label("Language").select_option("ja")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url("**/events/")
    assert page.get_by_role("heading", level=1).inner_text() == "大会"
