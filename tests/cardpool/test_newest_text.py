"""Rule 1−2−1: a card is played with the text of the newest set or promotional card.
Known release dates decide before release order, a dated promotional printing counts, and a
printing with neither date nor order sorts oldest (issue #13)."""

import datetime as dt
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils import translation

from cardpool.printings import (
    BY_DATE,
    BY_ORDER,
    BY_RECORDED,
    ONLY,
    newest,
    newest_with_reason,
    printing_key,
    release_key,
)
from tests.factories import CardFactory, CardSetFactory, PrintingFactory

JAN = dt.date(2002, 1, 15)
MAR = dt.date(2002, 3, 1)
JUN = dt.date(2002, 6, 1)


@pytest.fixture(autouse=True)
def _site_language_afterwards():
    # A request in Japanese leaves Japanese active in this thread; later tests expect
    # the site's default.
    yield
    translation.deactivate()


def pick(*items):
    """(label, date, order, recorded) tuples -> (label of the newest, reason)."""
    found, reason = newest_with_reason(items, key=lambda i: release_key(i[1], i[2], i[3]))
    return (found[0] if found else None), reason


def test_1_2_1_nothing_has_no_newest():
    assert pick() == (None, None)


def test_1_2_1_only_printing():
    assert pick(("base", None, 2, 1)) == ("base", ONLY)


def test_1_2_1_known_dates_decide_before_release_order():
    # Contradictory data: the dates win.
    assert pick(("a", MAR, 5, 1), ("b", JUN, 2, 2)) == ("b", BY_DATE)


def test_1_2_1_dated_promotional_card_is_not_newer_than_undated_sets():
    # Issue #24: a date alone does not make a promotional card newer than a set whose
    # release day nothing records; the release order keeps the set newest.
    assert pick(("base", None, 2, 1), ("second", None, 5, 2), ("promo", JUN, None, 3)) == (
        "second",
        BY_ORDER,
    )


def test_1_2_1_undated_promotional_card_sorts_oldest():
    assert pick(("promo", None, None, 9), ("beta", None, 1, 1)) == ("beta", BY_ORDER)


def test_1_2_1_printing_with_neither_date_nor_order_sorts_oldest():
    assert pick(("fairytale", None, None, 9), ("promo", JAN, None, 1)) == ("promo", BY_DATE)


def test_1_2_1_set_after_a_dated_set_is_at_least_as_new_as_that_date():
    # base is dated, second is not but comes later in the order: second is newer, and a
    # promotional card dated before base's date does not beat it.
    items = (("base", MAR, 2, 1), ("second", None, 5, 2), ("promo", JAN, None, 3))
    assert pick(*items) == ("second", BY_ORDER)


def test_1_2_1_dated_promo_after_the_inferred_date_is_newer():
    items = (("base", MAR, 2, 1), ("second", None, 5, 2), ("promo", JUN, None, 3))
    assert pick(*items) == ("promo", BY_DATE)


def test_1_2_1_release_order_decides_when_no_date_is_known():
    assert pick(("beta", None, 1, 5), ("base", None, 2, 1)) == ("base", BY_ORDER)


def test_1_2_1_same_set_the_printing_recorded_last():
    assert pick(("base-1", None, 2, 1), ("base-2", None, 2, 2)) == ("base-2", BY_RECORDED)


def test_1_2_1_nothing_known_the_printing_recorded_last():
    assert pick(("x", None, None, 1), ("y", None, None, 2)) == ("y", BY_RECORDED)


def test_newest_is_the_first_of_newest_with_reason():
    items = [("beta", MAR, 1, 3), ("promo", JUN, None, 1)]
    found = newest(items, key=lambda i: release_key(i[1], i[2], i[3]))
    assert found[0] == "promo"


def test_printing_key_prefers_the_printing_own_date():
    card_set = SimpleNamespace(release_date=MAR, release_order=None)
    assert printing_key(SimpleNamespace(set=card_set, pk=4)) == release_key(MAR, None, 4)
    dated = SimpleNamespace(set=card_set, pk=5, release_date=JUN)
    assert printing_key(dated) == release_key(JUN, None, 5)


# --- the card page says which printing's text is in force and why ------------------------


@pytest.mark.django_db
def test_1_2_1_card_page_names_the_dated_printing_in_force(client, game):
    base = CardSetFactory(game=game, code="base", name="基本セット", release_order=2)
    third = CardSetFactory(
        game=game, code="third", name="THIRD EXPANSION", release_order=6, release_date=JUN
    )
    card = CardFactory(game=game, name="滝口 洋介")
    PrintingFactory(card=card, set=third, text="new text")
    PrintingFactory(card=card, set=base, text="old text")
    response = client.get(reverse("cardpool:card_detail", args=[card.pk]))
    assert response.context["newest"].set == third
    assert response.context["newest_reason"] == BY_DATE
    body = response.content.decode()
    assert (
        "Text in force: THIRD EXPANSION (released 2002-06-01) — the newest printing by"
        " release date (rule 1−2−1)."
    ) in body


@pytest.mark.django_db
def test_1_2_1_card_page_by_release_order(client, game):
    beta = CardSetFactory(game=game, code="beta", name="βedition", release_order=1)
    base = CardSetFactory(game=game, code="base", name="基本セット", release_order=2)
    card = CardFactory(game=game, name="水姫")
    PrintingFactory(card=card, set=base, text="new text")
    PrintingFactory(card=card, set=beta, text="old text")
    body = client.get(reverse("cardpool:card_detail", args=[card.pk])).content.decode()
    assert (
        "Text in force: 基本セット — the newest printing by release order (rule 1−2−1)."
    ) in body


@pytest.mark.django_db
def test_1_2_1_card_page_only_printing(client, game):
    base = CardSetFactory(game=game, code="base", name="基本セット", release_order=2)
    card = CardFactory(game=game, name="森原 さとみ")
    PrintingFactory(card=card, set=base, text="only text")
    body = client.get(reverse("cardpool:card_detail", args=[card.pk])).content.decode()
    assert "Text in force: 基本セット — its only printing (rule 1−2−1)." in body


@pytest.mark.django_db
def test_1_2_1_card_page_recorded_last(client, game):
    promo = CardSetFactory(game=game, code="promo", name="プロモーションカード")
    card = CardFactory(game=game, name="スワティ")
    PrintingFactory(card=card, set=promo, number="P-1", text="first")
    PrintingFactory(card=card, set=promo, number="P-2", text="second")
    body = client.get(reverse("cardpool:card_detail", args=[card.pk])).content.decode()
    assert (
        "Text in force: プロモーションカード — no release date or order tells its printings"
        " apart, so the one recorded last (rule 1−2−1)."
    ) in body
    assert "second" in body


@pytest.mark.django_db
def test_1_2_1_card_page_in_japanese(client, game):
    base = CardSetFactory(game=game, code="base", name="基本セット", release_order=2)
    third = CardSetFactory(
        game=game, code="third", name="THIRD EXPANSION", release_order=6, release_date=JUN
    )
    card = CardFactory(game=game, name="滝口 洋介")
    PrintingFactory(card=card, set=third, text="new text")
    PrintingFactory(card=card, set=base, text="old text")
    url = reverse("cardpool:card_detail", args=[card.pk])
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert (
        "有効なテキスト: THIRD EXPANSION（2002-06-01発売）— 発売日が最も新しい版（ルール1−2−1）。"
    ) in body


# --- "any number of copies" as the game's formats read the mark (rule 1−2−3) ---------------


def _format(game, slug, **values):
    from decks.models import Format

    return Format.objects.create(game=game, slug=slug, name=slug, **values)


def _copies_text(client, card, language="en"):
    """The "Copies in a deck" entry of the card page, as text."""
    url = reverse("cardpool:card_detail", args=[card.pk])
    body = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    start = body.index("Copies in a deck" if language == "en" else "デッキに入れられる枚数")
    return " ".join(body[start : body.index("</dd>", start)].split())


@pytest.mark.django_db
def test_1_2_3_card_page_flagged_character_is_not_any_number(client, game):
    # The crossover format honours the mark for navigators only: a Character marked by
    # mistake still counts against the copy limit.
    _format(game, "crossover-like", copy_limit=4, exempt_card_type="NAVIGATOR")
    card = CardFactory(game=game, name="水姫", card_type="CHARACTER", unlimited=True)
    text = _copies_text(client, card)
    assert "any number (rule 1−2−3)" not in text
    assert "limited by the format" in text
    assert "Marked “any number”, but rule 1−2−3 exempts only common navigators." in text
    ja = _copies_text(client, card, "ja")
    assert "何枚でも（ルール1−2−3）" not in ja
    assert "フォーマットの制限に従う" in ja
    assert (
        "「何枚でも」と記録されていますが、ルール1−2−3で何枚でも入れられるのはコモンの"
        "ナビゲーターだけです。"
    ) in ja


@pytest.mark.django_db
def test_1_2_3_card_page_flagged_navigator_is_any_number(client, game):
    _format(game, "crossover-like", copy_limit=4, exempt_card_type="NAVIGATOR")
    card = CardFactory(game=game, name="スワティ", card_type="NAVIGATOR", unlimited=True)
    assert "any number (rule 1−2−3)" in _copies_text(client, card)
    assert "何枚でも（ルール1−2−3）" in _copies_text(client, card, "ja")


@pytest.mark.django_db
def test_1_2_3_card_page_flag_honoured_for_every_type_or_by_no_format(client, game):
    card = CardFactory(game=game, name="汎用", card_type="SPELL", unlimited=True)
    # No format of the game yet: the mark is shown as it is.
    assert "any number (rule 1−2−3)" in _copies_text(client, card)
    _format(game, "no-exemption", copy_limit=4, exempt_unlimited=False)
    text = _copies_text(client, card)
    assert "limited by the format" in text
    assert "Marked “any number”, but no format exempts it." in text
    _format(game, "any-type", copy_limit=4, exempt_card_type="")
    assert "any number (rule 1−2−3)" in _copies_text(client, card)


@pytest.mark.django_db
def test_1_2_3_card_page_unmarked_card_is_limited(client, game):
    _format(game, "crossover-like", copy_limit=4, exempt_card_type="NAVIGATOR")
    card = CardFactory(game=game, name="森原 さとみ", card_type="CHARACTER")
    text = _copies_text(client, card)
    assert "limited by the format" in text
    assert "Marked" not in text
