import pytest
from django.core.cache import caches

from tests.factories import CardSetFactory, GameFactory
from tournaments import snapshots


@pytest.fixture(autouse=True)
def _empty_caches():
    """Every test starts with empty caches: ids restart after a rolled-back test, so a
    page cached by one test could otherwise answer for another's event of the same id."""
    for cache in caches.all():
        cache.clear()
    snapshots.forget_engine_standings()


@pytest.fixture
def game(db):
    return GameFactory()


@pytest.fixture
def crossover_sets(game):
    """The CrossOver sets the importer tests refer to, in release order."""
    return {
        "beta": CardSetFactory(
            game=game, code="beta", name="βedition", aliases=["β版"], release_order=1, is_beta=True
        ),
        "base": CardSetFactory(
            game=game, code="base", name="基本セット", aliases=["ベーシック"], release_order=2
        ),
        "first": CardSetFactory(game=game, code="first", name="FIRST EXPANSION", release_order=4),
        "second": CardSetFactory(
            game=game, code="second", name="SECOND EXPANSION", release_order=5
        ),
    }
