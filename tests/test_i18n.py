from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.urls import reverse

LOCALE = Path(settings.BASE_DIR) / "locale"


def test_japanese_catalogue_translates_every_message():
    with (LOCALE / "ja" / "LC_MESSAGES" / "django.po").open("rb") as handle:
        catalog = read_po(handle, locale="ja")
    untranslated = [
        message.id
        for message in catalog
        if message.id and not (message.string and all(message.string))
    ]
    fuzzy = [message.id for message in catalog if message.id and message.fuzzy]
    assert untranslated == []
    assert fuzzy == []


@pytest.mark.parametrize("language", ["en", "ja"])
def test_catalogues_are_compiled(language):
    po = LOCALE / language / "LC_MESSAGES" / "django.po"
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run ./dev test (it compiles the catalogues)"
    assert mo.stat().st_mtime >= po.stat().st_mtime, f"{mo} is older than {po}"


@pytest.mark.django_db
def test_pages_are_english_by_default(client):
    response = client.get(reverse("cardpool:card_list"))
    body = response.content.decode()
    assert '<html lang="en">' in body
    assert "Browse" not in body  # the card list, not the home page
    assert ">Cards</a>" in body
    assert "No card matches." in body


@pytest.mark.django_db
def test_language_switch_shows_japanese_then_english(client):
    response = client.post(
        reverse("set_language"), {"language": "ja", "next": reverse("cardpool:card_list")}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("cardpool:card_list")
    body = client.get(reverse("cardpool:card_list")).content.decode()
    assert '<html lang="ja">' in body
    assert ">カード</a>" in body
    assert "該当するカードはありません。" in body

    client.post(reverse("set_language"), {"language": "en"})
    body = client.get(reverse("cardpool:card_list")).content.decode()
    assert '<html lang="en">' in body
    assert "No card matches." in body


@pytest.mark.django_db
def test_browser_language_picks_japanese(client):
    body = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="ja,en;q=0.5").content.decode()
    assert "カードプールを見る" in body


@pytest.mark.django_db
def test_language_switch_offers_both_languages(client):
    body = client.get(reverse("home")).content.decode()
    assert 'value="en"' in body
    assert 'value="ja"' in body
    assert "日本語" in body
