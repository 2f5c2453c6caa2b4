import pytest
from django.urls import reverse

from cardpool.models import CardType, Element
from tests.factories import CardFactory, CardSetFactory, PrintingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(game):
    base = CardSetFactory(game=game, code="base", name="基本セット", release_order=2)
    beta = CardSetFactory(game=game, code="beta", name="βedition", release_order=1, is_beta=True)
    satomi = CardFactory(
        game=game, name="森原 さとみ", element=Element.FIRE, cost="火火", ap=4, dp=2
    )
    PrintingFactory(card=satomi, set=base, text="new text")
    PrintingFactory(card=satomi, set=beta, text="old text")
    swati = CardFactory(
        game=game,
        name="スワティ",
        card_type=CardType.NAVIGATOR,
        element=Element.SKY,
        unlimited=True,
    )
    PrintingFactory(card=swati, set=base)
    event = CardFactory(game=game, name="ＡＢＣイベント", card_type=CardType.EVENT, cost="全全")
    PrintingFactory(card=event, set=beta)
    return {"satomi": satomi, "swati": swati, "event": event}


def names(response):
    return [card.name for card in response.context["page"].object_list]


def test_card_list_shows_every_card_sorted(client, pool):
    response = client.get(reverse("cardpool:card_list"))
    assert response.status_code == 200
    assert names(response) == ["ＡＢＣイベント", "スワティ", "森原 さとみ"]
    assert "森原 さとみ" in response.content.decode()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("森原さとみ", ["森原 さとみ"]),  # spacing ignored
        ("さとみ", ["森原 さとみ"]),
        ("ｽﾜﾃｨ", ["スワティ"]),  # half-width katakana
        ("abc", ["ＡＢＣイベント"]),  # full-width Latin, any case
        ("ＡＢＣ", ["ＡＢＣイベント"]),
        ("存在しない", []),
    ],
)
def test_card_list_search_is_width_and_space_insensitive(client, pool, query, expected):
    response = client.get(reverse("cardpool:card_list"), {"q": query})
    assert names(response) == expected


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"card_type": "NAVIGATOR"}, ["スワティ"]),
        ({"element": "火"}, ["森原 さとみ"]),
        ({"set": "beta"}, ["ＡＢＣイベント", "森原 さとみ"]),
        ({"set": "base", "card_type": "CHARACTER"}, ["森原 さとみ"]),
    ],
)
def test_card_list_filters(client, pool, params, expected):
    response = client.get(reverse("cardpool:card_list"), params)
    assert names(response) == expected


def test_card_list_bad_filter_value_shows_form_error(client, pool):
    response = client.get(reverse("cardpool:card_list"), {"card_type": "MONSTER"})
    assert response.status_code == 200
    assert "card_type" in response.context["filter"].form.errors


def test_card_list_htmx_request_gets_only_the_results(client, pool):
    response = client.get(reverse("cardpool:card_list"), {"q": "スワ"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body
    assert "スワティ" in body


def test_card_list_query_count_does_not_grow(client, game, django_assert_num_queries):
    base = CardSetFactory(game=game, code="base")
    url = reverse("cardpool:card_list")
    PrintingFactory(card=CardFactory(game=game), set=base)
    # count, the game and set choices of the filter form, the page of cards (with game),
    # their printings (with set): the same five queries whatever the number of cards.
    with django_assert_num_queries(5):
        client.get(url)
    for _ in range(20):
        PrintingFactory(card=CardFactory(game=game), set=base)
    with django_assert_num_queries(5):
        response = client.get(url)
    assert len(response.context["page"].object_list) == 21


def test_card_detail_shows_printings_and_newest_text(client, pool):
    response = client.get(reverse("cardpool:card_detail", args=[pool["satomi"].pk]))
    assert response.status_code == 200
    assert response.context["newest"].set.code == "base"
    body = response.content.decode()
    assert "new text" in body
    assert "old text" in body  # the β printing is still listed
    assert "基本セット" in body
    assert "βedition" in body


def test_card_detail_query_count(client, pool, django_assert_num_queries):
    # card with game, printings with sets, errata, rulings
    with django_assert_num_queries(4):
        client.get(reverse("cardpool:card_detail", args=[pool["satomi"].pk]))


def test_card_detail_shows_the_latest_erratum_and_the_rulings(client, pool, admin_user):
    import datetime as dt

    from rules.models import Erratum, Ruling
    from rules.services import save_erratum, save_ruling

    card = pool["satomi"]
    save_erratum(
        Erratum(card=card, date=dt.date(2002, 5, 1), new_text="erratum one"), by=admin_user
    )
    save_erratum(
        Erratum(card=card, date=dt.date(2002, 6, 1), new_text="erratum two"), by=admin_user
    )
    save_ruling(
        Ruling(game=card.game, question="Can she untap twice?", answer="No."),
        by=admin_user,
        cards=[card],
    )
    body = client.get(reverse("cardpool:card_detail", args=[card.pk])).content.decode()
    assert "erratum two" in body
    assert "Errata of 2002-06-01." in body
    assert "erratum one" not in body
    assert "Can she untap twice?" in body
    api = client.get(f"/api/v1/cards/{card.pk}/").json()
    assert api["current_text"] == "erratum two"


def test_card_detail_missing_card_is_404(client, db):
    assert client.get(reverse("cardpool:card_detail", args=[999999])).status_code == 404
