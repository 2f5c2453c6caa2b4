"""The public rules API: search and sections by number."""

import pytest

from rules import services
from rules.models import Ruling
from rules.services import import_rules_document
from tests.factories import CardFactory

pytestmark = pytest.mark.django_db


def test_search_api_returns_ranked_results_with_kind_and_highlight(client, crossover_rules):
    response = client.get("/api/v1/rules/search/", {"q": "４－３－８", "game": "crossover"})
    assert response.status_code == 200
    data = response.json()
    assert data["count"] == 3
    assert data["counts"] == {"card": 0, "ruling": 0, "section": 3}
    assert (data["next"], data["previous"]) == (None, None)
    top = data["results"][0]
    assert top == {
        "kind": "section",
        "game": "crossover",
        "number": "4−3−8",
        "title": "ひとつのカードに対して効果等が複数ある場合の処理",
        "title_html": "ひとつのカードに対して効果等が複数ある場合の処理",
        "excerpt": top["excerpt"],
        "status": "",
        "url": "http://testserver/rules/crossover/4-3-8/",
        "id": crossover_rules.sections.get(number_key="4-3-8").pk,
    }
    assert [r["number"] for r in data["results"]] == ["4−3−8", "4−3−8−1", "5"]
    assert "<mark>4-3-8</mark>" in data["results"][2]["excerpt"]


def test_search_api_finds_cards_and_rulings(client, crossover_rules, judge):
    card = CardFactory(game=crossover_rules.game, name="柴崎 拓也")
    services.save_ruling(
        Ruling(game=crossover_rules.game, question="Which order?", answer="4−3−8."),
        by=judge,
        cards=[card],
    )
    data = client.get("/api/v1/rules/search/", {"q": "柴崎拓也"}).json()
    assert [(r["kind"], r["title"]) for r in data["results"]][:2] == [
        ("card", "柴崎 拓也"),
        ("ruling", "Which order?"),
    ]
    assert data["results"][1]["status"] == "official"
    assert data["counts"] == {"card": 1, "ruling": 1, "section": 2}


def test_search_api_pages(client, crossover_rules):
    data = client.get("/api/v1/rules/search/", {"q": "の"}).json()
    assert len(data["results"]) == 20
    assert data["next"] == "http://testserver/api/v1/rules/search/?page=2&q=%E3%81%AE"
    second = client.get(data["next"]).json()
    assert second["previous"] == "http://testserver/api/v1/rules/search/?page=1&q=%E3%81%AE"
    assert second["results"][0]["id"] != data["results"][0]["id"]


def test_search_api_validates_its_parameters(client, crossover_rules):
    response = client.get("/api/v1/rules/search/", {"game": "nope", "page": "0"})
    assert response.status_code == 400
    assert set(response.json()["details"]["fields"]) == {"q", "game", "page"}


def test_search_api_query_count(client, game, django_assert_num_queries):
    def document(text, checksum):
        import_rules_document(game=game, text=text, checksum=checksum)

    document("■■ R ■■ 1 a ◆本文 1−1 b ◆x 2 c ◆y", "1")
    # ids of sections, rulings, cards; the page's sections
    with django_assert_num_queries(4):
        response = client.get("/api/v1/rules/search/", {"q": "本文"})
    assert response.json()["count"] == 1
    document("■■ R ■■ 1 a ◆本文 1−1 b ◆本文 2 c ◆本文", "2")
    with django_assert_num_queries(4):
        response = client.get("/api/v1/rules/search/", {"q": "本文"})
    assert response.json()["count"] == 3


def test_sections_api_by_number(client, crossover_rules):
    response = client.get("/api/v1/rules/sections/", {"game": "crossover", "number": "4-3-8"})
    assert response.status_code == 200
    data = response.json()
    assert data["count"] == 1
    section = data["results"][0]
    assert section["number"] == "4−3−8"
    assert section["number_key"] == "4-3-8"
    assert section["body"].startswith("◆ひとつのカードに複数の効果等が適用される場合")
    assert section["parent"]["number"] == "4−3"
    assert [child["number"] for child in section["children"]] == ["4−3−8−1"]
    assert section["document"] == {
        "id": crossover_rules.pk,
        "series": "rules",
        "title": crossover_rules.title,
        "version": "2.02",
        "is_current": True,
    }
    assert (section["needs_review"], section["review"]) == (False, [])
    assert section["url"] == "http://testserver/rules/crossover/4-3-8/"


def test_sections_api_number_printed_twice(client, crossover_rules):
    data = client.get("/api/v1/rules/sections/", {"number": "3−2−2", "game": "crossover"}).json()
    assert [(s["title"], s["parent"]["number"], s["needs_review"]) for s in data["results"]] == [
        ("カードのアンタップ", "3−2", False),
        ("カードを1枚引く", "3−3", True),
    ]
    assert data["results"][1]["review"][1] == (
        "Printed as 3−2−2 but it stands under 3−3; kept as printed."
    )


def test_sections_api_lists_only_current_documents_unless_asked(client, crossover_rules):
    old = crossover_rules
    import_rules_document(
        game=old.game, text="■■ R Version 3 ■■ 1 a ◆x 1−1 b ◆y 2 c ◆z", checksum="v3"
    )
    assert client.get("/api/v1/rules/sections/").json()["count"] == 3
    assert client.get("/api/v1/rules/sections/", {"document": old.pk}).json()["count"] == 106
    detail = client.get(f"/api/v1/rules/sections/{old.sections.get(number_key='4-3-8').pk}/")
    assert detail.json()["url"].endswith(f"/rules/crossover/sections/{detail.json()['id']}/")


def test_sections_api_list_query_count(client, game, django_assert_num_queries):
    import_rules_document(game=game, text="■■ R ■■ 1 a ◆x 1−1 b ◆y 2 c ◆z", checksum="1")
    # count, page of sections with document, game and parent, their children
    with django_assert_num_queries(3):
        client.get("/api/v1/rules/sections/")
    import_rules_document(
        game=game, text="■■ R ■■ 1 a ◆x 1−1 b ◆y 1−2 d ◆w 2 c ◆z 2−1 e ◆v", checksum="2"
    )
    with django_assert_num_queries(3):
        response = client.get("/api/v1/rules/sections/")
    assert response.json()["count"] == 5


@pytest.mark.parametrize("url", ["/api/v1/rules/search/", "/api/v1/rules/sections/"])
def test_rules_api_is_read_only(admin_client, crossover_rules, url):
    assert admin_client.post(url, {}, content_type="application/json").status_code == 405
    section = crossover_rules.sections.first()
    if "sections" in url:
        assert admin_client.delete(f"{url}{section.pk}/").status_code == 405
        assert admin_client.put(f"{url}{section.pk}/", {}).status_code == 405


def test_openapi_schema_describes_the_rules_endpoints(client, db):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    search = paths["/api/v1/rules/search/"]["get"]
    assert search["summary"] == "Search the rules"
    assert {p["name"] for p in search["parameters"]} >= {"q", "game", "page"}
    sections = paths["/api/v1/rules/sections/"]["get"]
    assert {p["name"] for p in sections["parameters"]} >= {"game", "number", "series", "document"}
    assert "/api/v1/rules/sections/{id}/" in paths
