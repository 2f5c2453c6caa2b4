"""A small CrossOver card pool with the built-in formats, for the deck tests that use the
database (services, pages, API, command, admin). The engine tests build their own pools
without Django (tests/decks/engine/pools.py)."""

import datetime as dt

import pytest

from cardpool.models import CardType, Element
from decks.builtin import load_builtin_formats
from tests.factories import CardFactory, CardSetFactory, GameFactory, PrintingFactory

BAN_DAY = dt.date(2002, 4, 1)
DAY_BEFORE_BAN = dt.date(2002, 3, 31)

# 50 cards, legal on any day: 4 + 4 + 42 (スワティ may be played in any number).
LEGAL_DECK = "4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n"
# The same with three βedition 狡猾フィーリア: legal on 2002-03-31, banned from 2002-04-01.
BETA_DECK = "4 森原 さとみ\n3 狡猾フィーリア (β)\n43 スワティ\n"


def make_sets(game):
    """The CrossOver sets in release order; `third` is not legal in the built-in format."""
    specs = [
        ("beta", "βedition", ["β", "β版"], True),
        ("base", "基本セット", ["基本", "ベーシック"], False),
        ("setup", "Setup Deck", [], False),
        ("first", "FIRST EXPANSION", [], False),
        ("second", "SECOND EXPANSION", [], False),
        ("promo", "プロモーションカード", ["プロモ"], False),
        ("third", "THIRD EXPANSION", [], False),
    ]
    return {
        code: CardSetFactory(
            game=game, code=code, name=name, aliases=aliases, release_order=order, is_beta=beta
        )
        for order, (code, name, aliases, beta) in enumerate(specs, start=1)
    }


@pytest.fixture
def sets(game):
    """The CrossOver sets in release order; `third` is not legal in the built-in format."""
    return make_sets(game)


def make_cards(game, sets):
    satomi = CardFactory(
        game=game, name="森原 さとみ", card_type=CardType.CHARACTER, element=Element.FIRE
    )
    PrintingFactory(card=satomi, set=sets["base"], number="001")
    feeria = CardFactory(game=game, name="狡猾フィーリア", card_type=CardType.CHARACTER)
    PrintingFactory(card=feeria, set=sets["beta"], number="B-10", text="old")
    PrintingFactory(card=feeria, set=sets["base"], number="010", text="new")
    swati = CardFactory(
        game=game,
        name="スワティ",
        card_type=CardType.NAVIGATOR,
        element=Element.SKY,
        unlimited=True,
    )
    PrintingFactory(card=swati, set=sets["base"], number="100")
    return {"satomi": satomi, "feeria": feeria, "swati": swati}


@pytest.fixture
def cards(game, sets):
    return make_cards(game, sets)


def make_formats():
    """The built-in formats from decks/builtin_formats.json, slug -> Format (the cards
    must exist: the formats ban some of them)."""
    GameFactory(slug="monster-collection", name="Monster Collection TCG")
    GameFactory(slug="asura-system", name="AsuraSystem TCG")
    return {fmt.slug: fmt for fmt in load_builtin_formats()}


@pytest.fixture
def formats(cards):
    """The built-in formats from decks/builtin_formats.json, slug -> Format."""
    return make_formats()


@pytest.fixture
def crossover(formats):
    return formats["crossover"]


@pytest.fixture
def player(django_user_model):
    return django_user_model.objects.create_user("player", password="pw")


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user("outsider", password="pw")


@pytest.fixture
def player_client(client, player):
    client.force_login(player)
    return client
