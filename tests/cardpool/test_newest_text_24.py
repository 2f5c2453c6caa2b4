"""Rule 1−2−1: a card plays with the text of its newest printing *released on or before the
day asked about*. A date alone does not make a promotional card newer than a set whose
release day is unknown: a 1999 promotional card's text is not in force over SECOND
EXPANSION's; it is when a dated set later in the order proves the undated set older
(issue #24, "The newest text"). On the card page and in the cards API's ``current_text``."""

import datetime as dt

import pytest
from django.urls import reverse

from cardpool.printings import BY_DATE, BY_ORDER, ONLY, newest_with_reason, release_key
from tests.factories import CardFactory, CardSetFactory, PrintingFactory

OLD_PROMO = dt.date(1999, 8, 1)
APR = dt.date(2002, 4, 1)
JUN = dt.date(2002, 6, 1)
JUL = dt.date(2002, 7, 1)


def pick(*items, as_of=None):
    """(label, date, order, recorded) tuples -> (label of the newest, reason)."""
    found, reason = newest_with_reason(
        items, key=lambda i: release_key(i[1], i[2], i[3]), as_of=as_of
    )
    return (found[0] if found else None), reason


def test_1_2_1_old_promo_is_not_newer_than_an_undated_set():
    items = (("base", None, 2, 1), ("second", None, 5, 2), ("promo", OLD_PROMO, None, 3))
    assert pick(*items) == ("second", BY_ORDER)


def test_1_2_1_promo_dated_after_a_later_dated_set_is_newer_than_the_undated_one():
    # third (dated 2002-06-01) comes after base in the order, so base is older than that
    # day; a promotional card of 2002-07-01 is newer than both.
    items = (("base", None, 2, 1), ("third", JUN, 6, 2), ("promo", JUL, None, 3))
    assert pick(*items) == ("promo", BY_DATE)
    # A promotional card dated before third's day is not shown newer than base.
    items = (("base", None, 2, 1), ("promo", APR, None, 3), ("third", JUN, 6, 2))
    assert pick(*items) == ("third", BY_DATE)
    assert pick(("base", None, 2, 1), ("promo", APR, None, 3), ("t", JUN, 6, 2), as_of=APR) == (
        "base",
        BY_ORDER,
    )


def test_1_2_1_printing_released_after_the_day_asked_does_not_count():
    items = (("base", APR, 2, 1), ("third", JUN, 6, 2))
    assert pick(*items, as_of=dt.date(2002, 5, 1)) == ("base", ONLY)
    assert pick(*items, as_of=JUN) == ("third", BY_DATE)
    assert pick(("third", JUN, 6, 2), as_of=APR) == (None, None)


@pytest.fixture
def reprinted(game):
    base = CardSetFactory(game=game, code="base", name="基本セット", release_order=2)
    second = CardSetFactory(game=game, code="second", name="SECOND EXPANSION", release_order=5)
    promo = CardSetFactory(game=game, code="promo", name="プロモーションカード", release_order=None)
    card = CardFactory(game=game, name="再録 くん")
    PrintingFactory(card=card, set=base, number="050", text="base text")
    PrintingFactory(card=card, set=second, number="S-10", text="second text")
    PrintingFactory(card=card, set=promo, number="P-99", text="promo text", release_date=OLD_PROMO)
    return card


@pytest.mark.django_db
def test_1_2_1_card_page_shows_the_undated_set_text_over_an_old_promo(client, reprinted):
    response = client.get(reverse("cardpool:card_detail", args=[reprinted.pk]))
    assert response.context["newest"].text == "second text"
    assert response.context["newest_reason"] == BY_ORDER
    api = client.get(f"/api/v1/cards/{reprinted.pk}/").json()
    assert api["current_text"] == "second text"


@pytest.mark.django_db
def test_1_2_1_printing_announced_for_a_later_day_is_not_in_force_today(client, reprinted):
    reprinted.printings.filter(set__code="promo").update(release_date=dt.date(2099, 1, 1))
    third = CardSetFactory(
        game=reprinted.game, code="third", name="THIRD", release_order=6, release_date=JUN
    )
    PrintingFactory(card=reprinted, set=third, number="T-1", text="third text")
    response = client.get(reverse("cardpool:card_detail", args=[reprinted.pk]))
    assert response.context["newest"].text == "third text"
    assert client.get(f"/api/v1/cards/{reprinted.pk}/").json()["current_text"] == "third text"
