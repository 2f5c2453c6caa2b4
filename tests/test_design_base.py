"""The page frame every page shares (templates/base.html): a skip link to the content, and
one "Menu" disclosure holding the whole nav and the language switch (a phone shows only the
brand and the menu button; the stylesheet shows the menu inline on a wide screen)."""

from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

pytestmark = pytest.mark.django_db


class Frame(HTMLParser):
    """The links and buttons inside the header's <details class="site-menu">, and the
    skip link and <main> ids."""

    def __init__(self):
        super().__init__()
        self.depth = 0  # inside the menu's <details>: how deep
        self.menu_links: dict[str, str] = {}
        self.menu_buttons: list[str] = []
        self.summary = ""
        self.first_link: dict | None = None
        self.main_id = None
        self.language_select_in_menu = False
        self._text_for = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and self.first_link is None:
            self.first_link = attrs | {"text": ""}
            self._text_for = "first"
        if tag == "main":
            self.main_id = attrs.get("id")
        if tag == "details" and "site-menu" in (attrs.get("class") or ""):
            self.depth = 1
            return
        if self.depth:
            if tag == "details":
                self.depth += 1
            if tag == "summary":
                self._text_for, self._text = "summary", ""
            elif tag == "a":
                self._text_for, self._text, self._href = "link", "", attrs["href"]
            elif tag == "button":
                self._text_for, self._text = "button", ""
            elif tag == "select" and attrs.get("id") == "language-select":
                self.language_select_in_menu = True

    def handle_endtag(self, tag):
        if self._text_for == "first" and tag == "a":
            self.first_link["text"] = self._text.strip()
            self._text_for, self._text = None, ""
        if not self.depth:
            return
        if tag == "details":
            self.depth -= 1
        elif tag == "summary" and self._text_for == "summary":
            self.summary = self._text.strip()
            self._text_for = None
        elif tag == "a" and self._text_for == "link":
            self.menu_links[self._text.strip()] = self._href
            self._text_for = None
        elif tag == "button" and self._text_for == "button":
            self.menu_buttons.append(self._text.strip())
            self._text_for = None

    def handle_data(self, data):
        if self._text_for:
            self._text += data


def frame_of(client) -> Frame:
    response = client.get(reverse("cardpool:card_list"))
    assert response.status_code == 200
    frame = Frame()
    frame.feed(response.content.decode())
    return frame


def test_base_skip_link_is_first_and_targets_main(client):
    frame = frame_of(client)
    assert frame.first_link["href"] == "#main"
    assert frame.first_link["class"] == "skip-link"
    assert frame.first_link["text"] == "Skip to the content"
    assert frame.main_id == "main"


def test_base_menu_for_an_anonymous_visitor(client):
    frame = frame_of(client)
    assert frame.summary == "Menu"
    assert list(frame.menu_links) == [
        "Events",
        "Check a deck",
        "Cards",
        "Rules",
        "API",
        "Log in",
        "Sign up",
    ]
    assert frame.menu_links["Events"] == reverse("tournaments:event_list")
    assert frame.menu_links["Log in"] == f"{reverse('login')}?next=/cards/"
    assert frame.menu_links["Sign up"] == reverse("signup")
    assert frame.menu_buttons == ["Switch"]
    assert frame.language_select_in_menu


def test_base_menu_for_a_signed_in_player(client):
    client.force_login(User.objects.create_user("player", password="pw"))
    frame = frame_of(client)
    assert list(frame.menu_links) == [
        "Events",
        "My events",
        "My decks",
        "Check a deck",
        "Cards",
        "Rules",
        "API",
        "API tokens",
    ]
    assert frame.menu_links["My events"] == f"{reverse('home')}#my-events"
    assert frame.menu_links["API tokens"] == reverse("tokens:account_tokens")
    assert frame.menu_links["My decks"] == reverse("decks:deck_list")
    assert frame.menu_buttons == ["Log out", "Switch"]
    assert frame.language_select_in_menu


def test_base_menu_shows_admin_to_staff_only(client):
    client.force_login(User.objects.create_user("staff", password="pw", is_staff=True))
    assert frame_of(client).menu_links["Admin"] == reverse("admin:index")


def test_base_menu_in_japanese(client):
    client.post(reverse("set_language"), {"language": "ja"})
    frame = frame_of(client)
    assert frame.menu_links["大会"] == reverse("tournaments:event_list")
    assert frame.menu_buttons == ["切り替え"]
