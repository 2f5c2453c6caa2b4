"""The newest-printing rule (rulebook 1−2−1)."""

import datetime as dt

import pytest

from cardpool.models import Card, CardSet
from cardpool.printings import ReleaseKey, newest, release_key
from tests.factories import CardFactory, CardSetFactory, PrintingFactory

JAN = dt.date(2005, 1, 1)
JUN = dt.date(2005, 6, 1)


def test_release_key_fields():
    assert release_key(JAN, 3, 7) == ReleaseKey(release_date=JAN, release_order=3, recorded=7)


def test_release_key_unknown_values_count_as_oldest():
    assert release_key(None, None, 5) == ReleaseKey(
        release_order=-1, release_date=dt.date.min, recorded=5
    )


def test_release_key_higher_order_is_newer():
    assert release_key(None, 2, 1) > release_key(None, 1, 99)


def test_release_key_known_date_decides_before_order():
    # Rule 1−2−1 (issue #13): known release dates before release order.
    assert release_key(JUN, 1, 1) > release_key(JAN, 2, 99)


def test_release_key_dated_printing_without_order_is_newer_than_undated_sets():
    # A promotional card with a known date is a candidate too (1−2−1).
    assert release_key(JUN, None, 0) > release_key(None, 5, 99)
    assert release_key(None, None, 99) < release_key(None, 1, 0)


def test_release_key_equal_order_later_date_is_newer():
    assert release_key(JUN, 2, 1) > release_key(JAN, 2, 99)


def test_release_key_equal_order_unknown_date_is_older():
    assert release_key(None, 2, 99) < release_key(JAN, 2, 1)


def test_release_key_unknown_order_later_date_is_newer():
    assert release_key(JUN, None, 1) > release_key(JAN, None, 99)


def test_release_key_tie_later_recorded_is_newer():
    assert release_key(JAN, 2, 2) > release_key(JAN, 2, 1)
    assert release_key(None, None, 2) > release_key(None, None, 1)


def test_newest_of_nothing_is_none():
    assert newest([], key=lambda item: item) is None


def test_newest_picks_highest_order():
    items = [("beta", None, 1, 3), ("base", None, 2, 1), ("promo", None, None, 9)]
    result = newest(items, key=lambda item: release_key(item[1], item[2], item[3]))
    assert result[0] == "base"


def test_newest_equal_order_picks_later_date():
    items = [("june", JUN, 2, 1), ("january", JAN, 2, 2), ("undated", None, 2, 3)]
    result = newest(items, key=lambda item: release_key(item[1], item[2], item[3]))
    assert result[0] == "june"


def test_newest_full_tie_picks_last_recorded():
    items = [("first", JAN, 2, 1), ("third", JAN, 2, 3), ("second", JAN, 2, 2)]
    result = newest(items, key=lambda item: release_key(item[1], item[2], item[3]))
    assert result[0] == "third"


def test_newest_only_unknown_orders_picks_by_date_then_recorded():
    items = [("a", None, None, 5), ("b", JAN, None, 1), ("c", JAN, None, 2)]
    result = newest(items, key=lambda item: release_key(item[1], item[2], item[3]))
    assert result[0] == "c"


def test_newest_accepts_a_generator():
    result = newest((n for n in [3, 1, 2]), key=lambda n: release_key(None, n, 0))
    assert result == 3


@pytest.mark.django_db
def test_cardset_release_key_uses_its_order_and_date():
    card_set = CardSetFactory(release_order=4, release_date=JUN)
    assert card_set.release_key(8) == ReleaseKey(release_date=JUN, release_order=4, recorded=8)


def test_current_text_is_text_of_newest_set(crossover_sets):
    card = CardFactory(name="スワティ")
    # The newer printing is recorded first, so the recording order cannot decide.
    base = PrintingFactory(card=card, set=crossover_sets["base"], number="B-1", text="B")
    PrintingFactory(card=card, set=crossover_sets["beta"], number="β-1", text="A")
    card = Card.objects.get(pk=card.pk)
    assert card.newest_printing() == base
    assert card.current_text == "B"


def test_current_text_newer_set_recorded_later(crossover_sets):
    card = CardFactory(name="スワティ")
    PrintingFactory(card=card, set=crossover_sets["beta"], text="A")
    PrintingFactory(card=card, set=crossover_sets["base"], text="B")
    assert Card.objects.get(pk=card.pk).current_text == "B"


def test_current_text_unknown_order_printing_does_not_change_it(crossover_sets, game):
    card = CardFactory(name="スワティ")
    PrintingFactory(card=card, set=crossover_sets["beta"], text="A")
    base = PrintingFactory(card=card, set=crossover_sets["base"], text="B")
    promo = CardSetFactory(game=game, code="promo", name="Promo", release_order=None)
    PrintingFactory(card=card, set=promo, text="C")
    card = Card.objects.get(pk=card.pk)
    assert card.newest_printing() == base
    assert card.current_text == "B"


def test_current_text_dated_promo_without_order_is_newest(crossover_sets, game):
    # 1−2−1: the newest set or promotional card; a known date decides before order.
    card = CardFactory(name="スワティ")
    # βedition dated earlier: an undated set would stay newest (issue #24).
    CardSet.objects.filter(pk=crossover_sets["beta"].pk).update(release_date=JAN)
    PrintingFactory(card=card, set=crossover_sets["beta"], text="A")
    promo = CardSetFactory(
        game=game, code="promo", name="Promo", release_order=None, release_date=JUN
    )
    PrintingFactory(card=card, set=promo, text="C")
    assert Card.objects.get(pk=card.pk).current_text == "C"


def test_current_text_only_unknown_order_printing(game):
    card = CardFactory(name="スワティ")
    promo = CardSetFactory(game=game, code="promo", name="Promo", release_order=None)
    PrintingFactory(card=card, set=promo, text="C")
    assert Card.objects.get(pk=card.pk).current_text == "C"


def test_current_text_newest_of_four_sets(crossover_sets):
    card = CardFactory(name="火球")
    for code, text in [("second", "S"), ("beta", "A"), ("first", "F"), ("base", "B")]:
        PrintingFactory(card=card, set=crossover_sets[code], text=text)
    assert Card.objects.get(pk=card.pk).current_text == "S"


def test_current_text_same_order_later_date(game):
    card = CardFactory(name="火球")
    june = CardSetFactory(game=game, code="june", release_order=3, release_date=JUN)
    january = CardSetFactory(game=game, code="january", release_order=3, release_date=JAN)
    PrintingFactory(card=card, set=june, text="June")
    PrintingFactory(card=card, set=january, text="January")
    assert Card.objects.get(pk=card.pk).current_text == "June"


def test_current_text_same_set_last_recorded(crossover_sets):
    card = CardFactory(name="火球")
    PrintingFactory(card=card, set=crossover_sets["base"], number="B-1", text="first")
    last = PrintingFactory(card=card, set=crossover_sets["base"], number="B-2", text="second")
    card = Card.objects.get(pk=card.pk)
    assert card.newest_printing() == last
    assert card.current_text == "second"


def test_current_text_without_printing_is_empty(game):
    card = CardFactory(name="森原 さとみ")
    card = Card.objects.get(pk=card.pk)
    assert card.newest_printing() is None
    assert card.current_text == ""


def test_current_text_of_empty_newest_printing_is_empty(crossover_sets):
    card = CardFactory(name="火球")
    PrintingFactory(card=card, set=crossover_sets["beta"], text="A")
    PrintingFactory(card=card, set=crossover_sets["base"], text="")
    assert Card.objects.get(pk=card.pk).current_text == ""


def test_current_text_with_prefetch_needs_no_query(crossover_sets, django_assert_num_queries):
    card = CardFactory(name="スワティ")
    PrintingFactory(card=card, set=crossover_sets["base"], text="B")
    PrintingFactory(card=card, set=crossover_sets["beta"], text="A")
    other = CardFactory(name="森原 さとみ")
    cards = list(Card.objects.prefetch_related("printings__set").order_by("pk"))
    with django_assert_num_queries(0):
        texts = [c.current_text for c in cards]
    assert texts == ["B", ""]
    assert cards[1] == other
