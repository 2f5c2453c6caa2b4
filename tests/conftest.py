import pytest
from django.core.cache import caches
from django.http import HttpRequest
from django.test import Client

from tests.factories import CardSetFactory, GameFactory
from tournaments import snapshots


@pytest.fixture(autouse=True, scope="session")
def _client_login_passes_a_request():
    """django-axes (the login lockout) needs the request in ``authenticate``; Django's test
    ``Client.login`` gives none. Give it an empty one, so the lockout stays on in every test
    and ``client.login`` works as documented."""
    original = Client.login

    def login(self, **credentials):
        credentials.setdefault("request", HttpRequest())
        return original(self, **credentials)

    Client.login = login
    yield
    Client.login = original


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
