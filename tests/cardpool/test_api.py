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
    PrintingFactory(card=satomi, set=beta, number="B-01", rarity="レア", text="old")
    PrintingFactory(card=satomi, set=base, number="001", rarity="レア", text="new")
    swati = CardFactory(
        game=game,
        name="スワティ",
        card_type=CardType.NAVIGATOR,
        element=Element.SKY,
        unlimited=True,
    )
    PrintingFactory(card=swati, set=base)
    return {"satomi": satomi, "swati": swati}


def test_cards_api_lists_cards_anonymously_with_pagination(client, pool):
    response = client.get("/api/v1/cards/")
    assert response.status_code == 200
    data = response.json()
    assert data["count"] == 2
    assert data["next"] is None
    assert [card["name"] for card in data["results"]] == ["スワティ", "森原 さとみ"]


def test_cards_api_card_shape(client, pool):
    data = client.get(f"/api/v1/cards/{pool['satomi'].pk}/").json()
    assert data == {
        "id": pool["satomi"].pk,
        "game": "crossover",
        "name": "森原 さとみ",
        "card_type": "CHARACTER",
        "element": "火",
        "cost": "火火",
        "gender": "",
        "ap": 4,
        "dp": 2,
        "unlimited": False,
        "current_text": "new",
        "printings": [
            {
                "set": "beta",
                "set_name": "βedition",
                "is_beta": True,
                "number": "B-01",
                "rarity": "レア",
                "text": "old",
            },
            {
                "set": "base",
                "set_name": "基本セット",
                "is_beta": False,
                "number": "001",
                "rarity": "レア",
                "text": "new",
            },
        ],
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "森原さとみ"}, ["森原 さとみ"]),
        ({"q": "ｽﾜ"}, ["スワティ"]),
        ({"card_type": "NAVIGATOR"}, ["スワティ"]),
        ({"element": "火"}, ["森原 さとみ"]),
        ({"set": "beta"}, ["森原 さとみ"]),
        ({"set": "base"}, ["スワティ", "森原 さとみ"]),
        ({"game": "crossover", "element": "空"}, ["スワティ"]),
    ],
)
def test_cards_api_filters(client, pool, params, expected):
    data = client.get("/api/v1/cards/", params).json()
    assert [card["name"] for card in data["results"]] == expected


def test_cards_api_rejects_unknown_filter_values(client, pool):
    response = client.get("/api/v1/cards/", {"card_type": "MONSTER", "set": "nope"})
    assert response.status_code == 400
    assert set(response.json()["details"]["fields"]) == {"card_type", "set"}


def test_cards_api_pages_of_fifty(client, game):
    for _ in range(51):
        CardFactory(game=game)
    first = client.get("/api/v1/cards/").json()
    assert first["count"] == 51
    assert len(first["results"]) == 50
    second = client.get(first["next"]).json()
    assert len(second["results"]) == 1


def test_cards_api_is_read_only(admin_client, pool):
    response = admin_client.post("/api/v1/cards/", {"name": "x"}, content_type="application/json")
    assert response.status_code == 405
    response = admin_client.delete(f"/api/v1/cards/{pool['swati'].pk}/")
    assert response.status_code == 405


def test_cards_api_list_query_count(client, game, django_assert_num_queries):
    base = CardSetFactory(game=game, code="base")
    PrintingFactory(card=CardFactory(game=game), set=base)
    # count, page of cards with their game, printings with their set, errata
    with django_assert_num_queries(4):
        client.get("/api/v1/cards/")
    for _ in range(10):
        PrintingFactory(card=CardFactory(game=game), set=base)
    with django_assert_num_queries(4):
        response = client.get("/api/v1/cards/")
    assert response.json()["count"] == 11


def test_cards_api_detail_query_count(client, pool, django_assert_num_queries):
    with django_assert_num_queries(3):
        client.get(f"/api/v1/cards/{pool['satomi'].pk}/")


def test_openapi_schema_describes_the_cards_endpoint(client, db):
    response = client.get(reverse("schema"), HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    assert "/api/v1/cards/" in schema["paths"]
    assert "/api/v1/cards/{id}/" in schema["paths"]
    parameters = {p["name"] for p in schema["paths"]["/api/v1/cards/"]["get"]["parameters"]}
    assert {"q", "card_type", "element", "set", "game", "page"} <= parameters


def test_api_docs_page_is_served(client, db):
    response = client.get(reverse("api-docs"))
    assert response.status_code == 200
    assert b"swagger-ui" in response.content
