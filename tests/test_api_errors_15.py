"""Every API error is JSON in the one ``{code, message, details}`` shape (issue #15,
"Hostile input"): non-numeric ids, unknown API paths, huge integers in query parameters
and DRF's own errors on every API module (decks, cards, rules, events)."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver

HUGE = "99999999999999999999"


def _api_routes():
    """(route regex, kwarg names) of every pattern under ``api/v1/`` in the URL resolver."""
    routes = []

    def walk(patterns, prefix):
        for entry in patterns:
            pattern = prefix + str(entry.pattern.regex.pattern).lstrip("^").rstrip("$")
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, pattern)
            elif isinstance(entry, URLPattern):
                routes.append(pattern)

    walk(get_resolver().url_patterns, "")
    return [route for route in routes if route.startswith("api/v1/")]


def _with_ids(route: str, value: str) -> str | None:
    """The route with every id group replaced by ``value`` (the format suffix dropped),
    or None for a route without an id."""
    if "(?P<format>" in route:
        return None
    groups = re.findall(r"\(\?P<(\w+)>[^)]*\)", route)
    if not groups:
        return None
    path = re.sub(r"\(\?P<\w+>[^)]*\)", value, route)
    path = path.replace("\\.", ".").replace("\\Z", "").replace("/?", "/")
    return "/" + path


ID_ROUTES = sorted({path for route in _api_routes() if (path := _with_ids(route, "abc"))})


def _assert_error_shape(response, status, code):
    assert response.status_code == status, (response.status_code, response.content[:200])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert set(body) == {"code", "message", "details"}, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str)
    assert body["message"]
    assert isinstance(body["details"], dict)
    return body


@pytest.fixture
def member_client(client, db):
    user = get_user_model().objects.create_user("member15", password="x")
    client.force_login(user)
    client.raise_request_exception = False
    return client


def test_api_routes_walk_finds_the_id_routes():
    # The walk must see the routes the issue names, or the test below proves nothing.
    assert "/api/v1/decks/abc/" in ID_ROUTES
    assert "/api/v1/cards/abc/" in ID_ROUTES
    assert "/api/v1/rules/sections/abc/" in ID_ROUTES
    assert "/api/v1/events/abc/registrations/abc/penalty/" in ID_ROUTES
    assert len(ID_ROUTES) >= 40


@pytest.mark.parametrize("path", ID_ROUTES)
def test_api_non_numeric_id_is_json_404(member_client, path):
    _assert_error_shape(member_client.get(path), 404, "not_found")


@pytest.mark.parametrize("method", ["post", "patch", "put", "delete"])
def test_api_non_numeric_deck_id_any_method_is_json_404(member_client, method):
    response = getattr(member_client, method)(
        "/api/v1/decks/abc/", data="{}", content_type="application/json"
    )
    _assert_error_shape(response, 404, "not_found")


@pytest.mark.parametrize("path", ["/api/v1/no-such-thing/", "/api/nothing", "/api/v1/decks/1/x/"])
def test_api_unknown_path_is_json_404(client, db, path):
    _assert_error_shape(client.get(path), 404, "not_found")


def test_page_unknown_path_is_still_html_404(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_rules_sections_huge_document_is_400_naming_parameter(client, db):
    client.raise_request_exception = False
    body = _assert_error_shape(
        client.get(f"/api/v1/rules/sections/?document={HUGE}"), 400, "invalid_input"
    )
    assert list(body["details"]["fields"]) == ["document"]


def test_rules_search_huge_page_is_400_naming_parameter(client, db):
    client.raise_request_exception = False
    body = _assert_error_shape(
        client.get(f"/api/v1/rules/search/?q=card&page={HUGE}"), 400, "invalid_input"
    )
    assert list(body["details"]["fields"]) == ["page"]


@pytest.mark.parametrize("param", ["game", "set"])
def test_cards_huge_filter_is_400_naming_parameter(client, db, param):
    client.raise_request_exception = False
    body = _assert_error_shape(client.get(f"/api/v1/cards/?{param}={HUGE}"), 400, "invalid_input")
    assert list(body["details"]["fields"]) == [param]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/events/?page=" + HUGE,
        "/api/v1/cards/?page=" + HUGE,
    ],
)
def test_api_huge_page_is_json_error(member_client, path):
    response = member_client.get(path)
    assert response.status_code in (400, 404)
    _assert_error_shape(response, response.status_code, response.json()["code"])


def test_decks_anonymous_is_json_shape(client, db):
    _assert_error_shape(client.get("/api/v1/decks/"), 403, "not_authenticated")


def test_decks_invalid_body_is_json_shape(member_client):
    body = _assert_error_shape(
        member_client.post("/api/v1/decks/", data={}, content_type="application/json"),
        400,
        "invalid_input",
    )
    assert set(body["details"]["fields"]) == {"name", "format", "decklist"}


def test_deck_check_unknown_format_is_json_shape(member_client):
    body = _assert_error_shape(
        member_client.post(
            "/api/v1/decks/check/",
            data={"format": "nope", "decklist": "x"},
            content_type="application/json",
        ),
        400,
        "invalid_input",
    )
    assert list(body["details"]["fields"]) == ["format"]


def test_cards_method_not_allowed_is_json_shape(client, db):
    _assert_error_shape(client.delete("/api/v1/cards/"), 405, "method_not_allowed")


def test_api_unhandled_error_is_json_500(rf):
    from config.urls import handler500

    response = handler500(rf.get("/api/v1/cards/"))
    _assert_error_shape(response, 500, "server_error")
    assert handler500(rf.get("/cards/"))["Content-Type"].startswith("text/html")
