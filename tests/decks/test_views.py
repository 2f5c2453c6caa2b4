"""The web pages: checking a pasted deck (with htmx), "my decks", sign-up and log-in."""

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from decks import services
from decks.models import Deck, DeckCheck, DeckEntry
from tests.decks.conftest import BAN_DAY, BETA_DECK, DAY_BEFORE_BAN, LEGAL_DECK

pytestmark = pytest.mark.django_db

CHECK_URL = reverse("decks:check")
LIST_URL = reverse("decks:deck_list")
CREATE_URL = reverse("decks:deck_create")


def check(client, decklist, as_of="2002-04-01", fmt="crossover", **extra):
    return client.post(CHECK_URL, {"format": fmt, "as_of": as_of, "decklist": decklist}, **extra)


def entry_rows(deck):
    return list(
        DeckEntry.objects.filter(deck=deck).values_list(
            "card__name", "printing_set__code", "count", "section", "position"
        )
    )


@pytest.fixture
def deck(crossover, player):
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Fire deck", text=BETA_DECK, as_of=DAY_BEFORE_BAN
    )
    return deck


# --- check a deck -------------------------------------------------------------------


def test_check_page_shows_the_form(client, crossover):
    response = client.get(CHECK_URL)
    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>Check a deck</h1>" in body
    assert '<option value="crossover" selected>' in body
    assert '<option value="monster-collection">' in body
    assert '<option value="asura-system">' in body
    assert '<textarea name="decklist"' in body
    assert 'hx-post="/decks/check/"' in body
    assert 'class="verdict' not in body


def test_check_page_legal_deck_shows_verdict_and_counts(client, crossover):
    response = check(client, LEGAL_DECK)
    assert response.status_code == 200
    body = response.content.decode()
    assert '<div class="verdict legal">' in body
    assert "CrossOver The F&amp;C TCG (Basic Rules v2.02) (version 1) as of 2002-04-01" in body
    assert "<dt>Deck</dt><dd>50</dd>" in body
    assert "<dt>Sideboard</dt><dd>0</dd>" in body
    assert "<dt>Character</dt><dd>8</dd><dt>Navigator</dt><dd>42</dd>" in body
    assert (
        "<dt>no element</dt><dd>4</dd><dt>Fire (火)</dt><dd>4</dd><dt>Sky (空)</dt><dd>42</dd>"
    ) in body
    assert "<h2>Problems</h2>" not in body
    assert 'class="bad"' not in body


def test_check_page_shows_each_violation_next_to_its_line(client, crossover):
    text = "// mine\n" + BETA_DECK + "サイドボード\n1 ナイカード\n"
    response = check(client, text)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Not legal: 2 problems" in body
    assert "<dt>Deck</dt><dd>50</dd>" in body
    assert "<dt>Sideboard</dt><dd>1</dd>" in body
    assert (
        '<li><strong class="report-heading">Banned card</strong> <span class="rule">rule 1−2−1'
        '</span>\n    <span class="report-message">狡猾フィーリア (βedition printing) is banned'
        " on 2002-04-01.</span></li>"
    ) in body
    assert (
        '<li value="3" class="bad"><span class="text">3 狡猾フィーリア (β)</span>\n'
        '    <span class="flag" title="狡猾フィーリア (βedition printing) is banned on '
        '2002-04-01.">Banned card</span>\n  </li>'
    ) in body
    assert (
        '<li value="6" class="bad"><span class="text">1 ナイカード</span>\n'
        '    <span class="flag" title="Unknown card “ナイカード” on line 6.">Unknown card</span>'
    ) in body
    assert '<li value="2" class=""><span class="text">4 森原 さとみ</span>' in body
    assert body.count('class="bad"') == 2


def test_check_page_same_deck_legal_the_day_before_the_ban(client, crossover):
    body = check(client, BETA_DECK, as_of="2002-03-31").content.decode()
    assert '<div class="verdict legal">' in body
    assert "Banned card" not in body


def test_check_page_htmx_returns_only_the_report(client, crossover):
    response = check(client, BETA_DECK, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert "<form" not in body
    assert '<div class="verdict illegal">' in body
    assert "Not legal: 1 problem\n" in body
    assert '">Banned card</span>' in body


def test_check_page_unknown_format_shows_a_field_error(client, crossover):
    response = check(client, LEGAL_DECK, fmt="nope")
    assert response.status_code == 200
    body = response.content.decode()
    assert (
        '<ul class="errorlist" id="id_format_error"><li>Select a valid choice. '
        "That choice is not one of the available choices.</li></ul>"
    ) in body
    assert (
        "<li>Format: Select a valid choice. That choice is not one of the available choices.</li>"
    ) in body
    assert 'class="verdict' not in body
    partial = check(client, LEGAL_DECK, fmt="nope", HTTP_HX_REQUEST="true").content.decode()
    assert '<ul class="errors"><li>Format: Select a valid choice.' in partial


def test_check_page_in_japanese_shows_japanese_messages(client, crossover):
    response = client.post(reverse("set_language"), {"language": "ja", "next": CHECK_URL})
    assert response.status_code == 302
    body = check(client, BETA_DECK).content.decode()
    assert '<html lang="ja">' in body
    message = "〔狡猾フィーリア〕（βedition版）は2002-04-01時点で禁止カードです。"
    assert f'<span class="flag" title="{message}">禁止カード</span>' in body
    assert f'<span class="report-message">{message}</span></li>' in body
    assert "is banned on" not in body


# --- my decks -----------------------------------------------------------------------


def test_my_decks_anonymous_is_sent_to_login(client, deck):
    for url in (
        LIST_URL,
        CREATE_URL,
        reverse("decks:deck_detail", args=[deck.pk]),
        reverse("decks:deck_export", args=[deck.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={url}"


def test_my_decks_list_shows_only_own_decks(player_client, deck, outsider, crossover):
    services.save_deck(owner=outsider, fmt=crossover, name="Not mine", text=LEGAL_DECK)
    response = player_client.get(LIST_URL)
    assert response.status_code == 200
    body = response.content.decode()
    assert f'<a href="/decks/{deck.pk}/">Fire deck</a>' in body
    assert "legal (2002-03-31)" in body
    assert "Not mine" not in body


def test_my_decks_list_query_count(player_client, player, crossover, django_assert_num_queries):
    services.save_deck(owner=player, fmt=crossover, name="Deck 0", text=LEGAL_DECK)
    player_client.get(LIST_URL)  # warm up
    # session, user, count, the page's decks, their checks
    with django_assert_num_queries(5) as first:
        player_client.get(LIST_URL)
    for number in range(1, 5):
        services.save_deck(owner=player, fmt=crossover, name=f"Deck {number}", text=LEGAL_DECK)
    with django_assert_num_queries(len(first.captured_queries)):
        response = player_client.get(LIST_URL)
    assert len(re.findall(r'<a href="/decks/\d+/">Deck \d</a>', response.content.decode())) == 5


def test_create_deck_stores_it_and_redirects_to_it(player_client, player, crossover):
    response = player_client.post(
        CREATE_URL, {"name": "New one", "format": "crossover", "decklist": LEGAL_DECK}
    )
    deck = Deck.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("decks:deck_detail", args=[deck.pk])
    assert (deck.owner, deck.name, deck.format) == (player, "New one", crossover)
    assert entry_rows(deck) == [
        ("森原 さとみ", None, 4, "main", 0),
        ("狡猾フィーリア", "base", 4, "main", 1),
        ("スワティ", None, 42, "main", 2),
    ]
    assert deck.checks.get().legal is True
    page = player_client.get(response["Location"]).content.decode()
    assert "Saved. The deck is legal." in page
    assert "<h1>New one</h1>" in page
    assert (
        '<pre class="decklist">4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n</pre>' in page
    )


def test_create_illegal_deck_is_stored_with_a_warning(player_client, crossover):
    response = player_client.post(
        CREATE_URL,
        {"name": "Small", "format": "crossover", "decklist": "4 森原 さとみ\n"},
        follow=True,
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Saved, but the deck is not legal yet." in body
    assert '<strong class="report-heading">Deck too small</strong>' in body
    assert Deck.objects.get().checks.get().legal is False


def test_create_deck_with_unknown_card_shows_the_error_and_stores_nothing(player_client, crossover):
    response = player_client.post(
        CREATE_URL,
        {"name": "Bad", "format": "crossover", "decklist": "4 森原 さとみ\n2 森原さとみん\n"},
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Some lines name no known card; fix them to save." in body
    assert (
        '<li><strong class="report-heading">Unknown card</strong>\n'
        '    <span class="report-message">Unknown card “森原さとみん” on line 2. '
        "Did you mean 森原 さとみ?</span></li>"
    ) in body
    assert Deck.objects.count() == 0
    assert DeckEntry.objects.count() == 0
    assert DeckCheck.objects.count() == 0


def test_edit_deck_form_is_filled_and_saving_replaces_entries(player_client, deck):
    url = reverse("decks:deck_edit", args=[deck.pk])
    page = player_client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert 'value="Fire deck"' in body
    assert "4 森原 さとみ\n3 狡猾フィーリア [beta]\n43 スワティ\n</textarea>" in body
    response = player_client.post(
        url, {"name": "Renamed", "format": "crossover", "decklist": "4 森原さとみ\n46 スワティ"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("decks:deck_detail", args=[deck.pk])
    deck.refresh_from_db()
    assert deck.name == "Renamed"
    assert entry_rows(deck) == [
        ("森原 さとみ", None, 4, "main", 0),
        ("スワティ", None, 46, "main", 1),
    ]
    assert deck.checks.count() == 2
    assert Deck.objects.count() == 1


def test_edit_deck_with_unknown_card_keeps_the_old_entries(player_client, deck):
    before = entry_rows(deck)
    response = player_client.post(
        reverse("decks:deck_edit", args=[deck.pk]),
        {"name": "Renamed", "format": "crossover", "decklist": "4 ナイカード\n"},
    )
    assert response.status_code == 200
    assert "Some lines name no known card; fix them to save." in response.content.decode()
    deck.refresh_from_db()
    assert deck.name == "Fire deck"
    assert entry_rows(deck) == before


def test_duplicate_deck_by_post(player_client, player, deck):
    url = reverse("decks:deck_duplicate", args=[deck.pk])
    assert player_client.get(url).status_code == 405
    assert Deck.objects.count() == 1
    response = player_client.post(url)
    copy = Deck.objects.exclude(pk=deck.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("decks:deck_detail", args=[copy.pk])
    assert (copy.name, copy.owner) == ("Fire deck (2)", player)
    assert entry_rows(copy) == entry_rows(deck)
    page = player_client.get(response["Location"]).content.decode()
    assert "Copied as “Fire deck (2)”." in page


def test_delete_deck_asks_then_deletes(player_client, deck):
    url = reverse("decks:deck_delete", args=[deck.pk])
    page = player_client.get(url)
    assert page.status_code == 200
    assert "<h1>Delete “Fire deck”?</h1>" in page.content.decode()
    assert Deck.objects.count() == 1
    response = player_client.post(url)
    assert response.status_code == 302
    assert response["Location"] == LIST_URL
    assert Deck.objects.count() == 0
    assert DeckEntry.objects.count() == 0
    assert "Deleted “Fire deck”." in player_client.get(LIST_URL).content.decode()


def test_export_deck_as_text(player_client, crossover, player):
    deck, _ = services.save_deck(
        owner=player,
        fmt=crossover,
        name="Export",
        text="4 森原 さとみ\n3 狡猾フィーリア (β)\n43 スワティ\nSB: 1 狡猾フィーリア (基本)\n",
    )
    response = player_client.get(reverse("decks:deck_export", args=[deck.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="deck-{deck.pk}.txt"'
    assert response.content.decode() == (
        "4 森原 さとみ\n3 狡猾フィーリア [beta]\n43 スワティ\n\n"
        "サイドボード\n1 狡猾フィーリア [base]\n"
    )


def test_outsider_gets_404_for_someone_elses_deck(client, outsider, deck):
    client.force_login(outsider)
    before = entry_rows(deck)
    pk = deck.pk
    assert client.get(reverse("decks:deck_detail", args=[pk])).status_code == 404
    assert client.get(reverse("decks:deck_edit", args=[pk])).status_code == 404
    edit = client.post(
        reverse("decks:deck_edit", args=[pk]),
        {"name": "Stolen", "format": "crossover", "decklist": "50 スワティ"},
    )
    assert edit.status_code == 404
    assert client.post(reverse("decks:deck_duplicate", args=[pk])).status_code == 404
    assert client.get(reverse("decks:deck_delete", args=[pk])).status_code == 404
    assert client.post(reverse("decks:deck_delete", args=[pk])).status_code == 404
    assert client.get(reverse("decks:deck_export", args=[pk])).status_code == 404
    deck.refresh_from_db()
    assert deck.name == "Fire deck"
    assert entry_rows(deck) == before
    assert Deck.objects.count() == 1
    assert DeckCheck.objects.count() == 1


# --- accounts ------------------------------------------------------------------------


def test_signup_creates_a_user_and_logs_in(client, db):
    page = client.get(reverse("signup"))
    assert page.status_code == 200
    assert "<h1>Create an account</h1>" in page.content.decode()
    response = client.post(
        reverse("signup"),
        {"username": "newplayer", "password1": "a-long-pass-123", "password2": "a-long-pass-123"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"  # the player's hub, as after logging in
    user = User.objects.get(username="newplayer")
    assert user.check_password("a-long-pass-123")
    assert client.get(LIST_URL).status_code == 200
    assert int(client.session["_auth_user_id"]) == user.pk


@pytest.mark.parametrize(
    ("next_url", "lands_on"),
    [("/events/", "/events/"), ("https://evil.example/", "/"), ("//evil.example/", "/")],
)
def test_signup_goes_back_to_next_on_this_site_only(client, db, next_url, lands_on):
    page = client.get(reverse("signup"), {"next": next_url})
    hidden = f'<input type="hidden" name="next" value="{next_url}">'
    assert (hidden in page.content.decode()) is (lands_on == next_url)
    response = client.post(
        reverse("signup"),
        {
            "username": "newplayer",
            "password1": "a-long-pass-123",
            "password2": "a-long-pass-123",
            "next": next_url,
        },
    )
    assert (response.status_code, response["Location"]) == (302, lands_on)


def test_signup_with_mismatched_passwords_creates_nobody(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "newplayer", "password1": "a-long-pass-123", "password2": "other-pass-456"},
    )
    assert response.status_code == 200
    assert "The two password fields didn’t match." in response.content.decode()
    assert User.objects.count() == 0


def test_login_page_renders_and_logs_in(client, player):
    page = client.get(reverse("login"))
    assert page.status_code == 200
    body = page.content.decode()
    assert '<input type="text" name="username"' in body
    assert 'name="password"' in body
    response = client.post(reverse("login"), {"username": "player", "password": "pw"})
    assert response.status_code == 302
    assert response["Location"] == "/"  # the player's hub


def test_check_page_line_numbers_count_leading_blank_lines(client, crossover):
    # Line numbers must match the player's editor (and the API), so the text is not trimmed.
    body = check(client, "\n\n4 ナイカード\n").content.decode()
    assert '<li value="3" class="bad"><span class="text">4 ナイカード</span>' in body
    assert "Unknown card “ナイカード” on line 3." in body


def test_check_page_blank_decklist_is_required(client, crossover):
    body = check(client, " \n\n ").content.decode()
    assert (
        '<ul class="errorlist" id="id_decklist_error"><li>This field is required.</li></ul>' in body
    )
    assert 'class="verdict' not in body


def test_deck_detail_lists_the_check_history(player_client, crossover, player):
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="火単", text=LEGAL_DECK, as_of=DAY_BEFORE_BAN
    )
    services.save_deck(
        owner=player, fmt=crossover, name="火単", text=BETA_DECK, as_of=BAN_DAY, deck=deck
    )
    body = player_client.get(f"/decks/{deck.pk}/").content.decode()
    assert "<h2>Check history</h2>" in body
    assert body.count("<td>2002-04-01</td>") == 1
    assert body.count("<td>2002-03-31</td>") == 1
