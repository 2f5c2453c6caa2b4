"""Content-Security-Policy (config/csp.py, issue #15): the exact header on every kind of
response, and no template that the policy would break (inline script, handler attribute,
style attribute or element)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse

from config.csp import ContentSecurityPolicyMiddleware

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def assert_policy(response) -> None:
    assert response["Content-Security-Policy"] == POLICY
    assert "Content-Security-Policy-Report-Only" not in response.headers


@pytest.fixture
def staff_client(django_user_model):
    user = django_user_model.objects.create_superuser("csp-admin", "csp@example.com", "pw")
    client = Client()
    client.force_login(user)
    return client, user


@pytest.mark.django_db
def test_html_page_carries_the_policy(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert_policy(response)


@pytest.mark.django_db
def test_api_answer_carries_the_policy(client):
    response = client.get("/api/v1/cards/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert_policy(response)


@pytest.mark.django_db
def test_admin_pages_carry_the_policy(staff_client):
    client, user = staff_client
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200
    assert_policy(index)
    change = client.get(reverse("admin:auth_user_change", args=[user.pk]))
    assert change.status_code == 200
    assert_policy(change)
    assert_policy(Client().get(reverse("admin:login")))


@pytest.mark.django_db
def test_not_found_pages_carry_the_policy(client):
    page = client.get("/no-such-page/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")
    assert_policy(page)
    api = client.get("/api/v1/no-such-thing/")
    assert api.status_code == 404
    assert api.json()["code"] == "not_found"
    assert_policy(api)


@pytest.mark.django_db
def test_api_docs_serve_their_script_from_a_url(client):
    """Swagger UI under the policy: the page has no inline script or style; its start-up
    script is the same view with ?script, JavaScript with the policy too."""
    page = client.get(reverse("api-docs"))
    assert page.status_code == 200
    assert_policy(page)
    body = page.content.decode()
    assert '<div id="swagger-ui"></div>' in body
    assert '<script src="/api/docs/?script="></script>' in body
    assert '<link rel="stylesheet" href="/static/css/swagger.css">' in body
    assert "<style" not in body
    assert re.findall(r"<script\b[^>]*>(?!</script>)", body) == []  # every <script> is empty
    script = client.get(reverse("api-docs") + "?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle({" in script.content.decode()
    assert_policy(script)


def test_report_only_and_a_view_of_its_own():
    request = RequestFactory().get("/")
    with override_settings(CSP_REPORT_ONLY=True):
        middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
    response = middleware(request)
    assert response["Content-Security-Policy-Report-Only"] == POLICY
    assert "Content-Security-Policy" not in response.headers

    def own(request):
        response = HttpResponse("ok")
        response["Content-Security-Policy"] = "default-src 'none'"
        return response

    response = ContentSecurityPolicyMiddleware(own)(request)
    assert response["Content-Security-Policy"] == "default-src 'none'"
    assert "Content-Security-Policy-Report-Only" not in response.headers


def test_directives_come_from_the_setting():
    request = RequestFactory().get("/")
    directives = {"default-src": ["'self'"], "img-src": ["'self'", "https://img.example"]}
    with override_settings(CSP_DIRECTIVES=directives):
        middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
    response = middleware(request)
    assert response["Content-Security-Policy"] == (
        "default-src 'self'; img-src 'self' https://img.example"
    )


# --- Templates: nothing the policy would block -------------------------------------------

COMMENT = re.compile(r"{#[^\n]*?#}|{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.DOTALL)
TAG = re.compile(r"<[a-zA-Z][^>]*>")
SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)
ATTRIBUTE = re.compile(r"""(?<![\w:.-])(on[a-z]+|style|hx-on[\w:-]*|data-hx-on[\w:-]*)\s*=""")


def problems_in(text: str) -> list[str]:
    """What in a template the Content-Security-Policy would refuse."""
    text = COMMENT.sub("", text)
    found = []
    for attributes, body in SCRIPT.findall(text):
        if body.strip():
            found.append("inline <script> body")
        if "src=" not in attributes:
            found.append("<script> without src")
    if re.search(r"<style\b", text, re.IGNORECASE):
        found.append("<style> element")
    for tag in TAG.findall(text):
        for name in ATTRIBUTE.findall(tag):
            found.append(f"{name}= attribute")
        if re.search(r"""=\s*["']?\s*javascript:""", tag, re.IGNORECASE):
            found.append("javascript: URL")
    return found


def template_files() -> list[Path]:
    base = Path(settings.BASE_DIR)
    directories = [base / "templates", *sorted(base.glob("*/templates"))]
    return sorted(path for directory in directories for path in directory.rglob("*.html"))


def test_the_scan_finds_what_the_policy_blocks():
    assert problems_in('<script src="/static/js/live.js" defer></script>') == []
    assert problems_in("{# an inline <style> is refused #}<p>x</p>") == []
    assert problems_in("<script>alert(1)</script>") == [
        "inline <script> body",
        "<script> without src",
    ]
    assert problems_in("<style>p { color: red }</style>") == ["<style> element"]
    assert problems_in('<p style="color: red">x</p>') == ["style= attribute"]
    assert problems_in('<button type="button" onclick="go()">x</button>') == ["onclick= attribute"]
    assert problems_in('<form hx-on:submit="go()">') == ["hx-on:submit= attribute"]
    assert problems_in('<a href="javascript:go()">x</a>') == ["javascript: URL"]
    # Words in text and data attributes are not attributes the policy cares about.
    assert problems_in('<p data-online="1">Turn on = off</p>') == []


def test_no_template_has_inline_script_or_style():
    files = template_files()
    assert len(files) > 50
    assert Path(settings.BASE_DIR, "templates/base.html") in files
    assert Path(settings.BASE_DIR, "tournaments/templates/tournaments/projector.html") in files
    found = {
        str(path.relative_to(settings.BASE_DIR)): problems
        for path in files
        if (problems := problems_in(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_htmx_adds_no_style_and_evaluates_nothing():
    """htmx inserts an inline <style> for its indicator unless told not to; both pages that
    load htmx tell it, and the stylesheets carry the indicator rules instead."""
    base = Path(settings.BASE_DIR)
    for template in ("templates/base.html", "templates/admin/job_progress.html"):
        text = (base / template).read_text(encoding="utf-8")
        assert '"includeIndicatorStyles":false,"allowEval":false' in text, template
    for stylesheet in ("static/css/site.css", "static/css/admin.css"):
        text = (base / stylesheet).read_text(encoding="utf-8")
        assert ".htmx-indicator { opacity: 0; visibility: hidden; }" in text, stylesheet


# --- Reports ------------------------------------------------------------------------------


def test_a_report_uri_is_added_to_the_policy_enforced_or_report_only():
    request = RequestFactory().get("/")
    uri = "https://reports.example.org/csp?site=crossover"
    for report_only, header in (
        (False, "Content-Security-Policy"),
        (True, "Content-Security-Policy-Report-Only"),
    ):
        with override_settings(CSP_REPORT_ONLY=report_only, CSP_REPORT_URI=f" {uri} "):
            middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
        assert middleware(request)[header] == f"{POLICY}; report-uri {uri}"
    with override_settings(CSP_REPORT_ONLY=True, CSP_REPORT_URI=""):
        middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
    assert middleware(request)["Content-Security-Policy-Report-Only"] == POLICY


@pytest.mark.parametrize(
    "uri", ["https://a.example/r; script-src *", "https://a.example/r https://b", "a,b"]
)
def test_a_report_uri_that_would_change_the_policy_is_refused(uri):
    with (
        override_settings(CSP_REPORT_URI=uri),
        pytest.raises(ImproperlyConfigured) as failure,
    ):
        ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
    assert str(failure.value) == f"CSP_REPORT_URI={uri!r} is not one URL."


# --- Django's admin templates ---------------------------------------------------------------


def without_action_bars(model_admin) -> bool:
    return not (model_admin.actions_on_top or model_admin.actions_on_bottom)


def test_every_admin_keeps_an_action_bar():
    """Django's change_list.html writes an inline <style> when a ModelAdmin turns off both
    action bars (the test below shows it): every admin the site registers keeps one."""
    registry = admin.site._registry
    assert len(registry) > 15
    assert get_user_model() in registry
    assert [
        model._meta.label
        for model, model_admin in registry.items()
        if without_action_bars(model_admin)
    ] == []


@pytest.mark.django_db
def test_a_change_list_without_action_bars_would_break_the_policy(staff_client, monkeypatch):
    client, _ = staff_client
    user_admin = admin.site._registry[get_user_model()]
    url = reverse("admin:auth_user_changelist")
    assert "<style" not in client.get(url).content.decode()
    monkeypatch.setattr(user_admin, "actions_on_top", False)
    monkeypatch.setattr(user_admin, "actions_on_bottom", False)
    assert without_action_bars(user_admin)
    assert "<style>" in client.get(url).content.decode()
