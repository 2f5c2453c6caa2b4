"""The site's own 403, 404, 500 and CSRF failure pages: in the site's layout, in the
reader's language, saying what happened and what to do (Django's defaults are bare English
pages, and its CSRF page is a developer's explanation)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views import defaults

from config.urls import handler500
from tests.tournaments.factories import UserFactory

pytestmark = pytest.mark.django_db


def h1(response) -> str:
    html = response.content.decode()
    return html.split("<h1>", 1)[1].split("</h1>", 1)[0]


@pytest.mark.parametrize(
    ("language", "title"), [("en", "Page not found"), ("ja", "ページが見つかりません")]
)
def test_404_page_in_the_readers_language(client, language, title):
    response = client.get("/events/999999/", headers={"accept-language": language})
    assert response.status_code == 404
    assert h1(response) == title
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert reverse("tournaments:event_list") in html
    assert "Content-Security-Policy" in response.headers


@pytest.mark.parametrize(
    ("language", "title", "says"),
    [
        ("en", "Not allowed", "You are logged in as outsider"),
        ("ja", "権限がありません", "outsider としてログインしています"),
    ],
)
def test_403_page_names_the_account(client, language, title, says):
    client.force_login(UserFactory(username="outsider"))
    response = client.get(reverse("venue_poster"), headers={"accept-language": language})
    assert response.status_code == 403
    assert h1(response) == title
    assert says in response.content.decode()


def test_403_page_asks_a_visitor_to_log_in():
    request = RequestFactory().get("/events/7/staff/")
    request.user = AnonymousUser()
    with translation.override("en"):
        response = defaults.permission_denied(request, PermissionDenied("not staff"))
    html = response.content.decode()
    assert response.status_code == 403
    assert "You need to log in to open this page or do this." in html
    assert f'href="{reverse("login")}?next=/events/7/staff/"' in html
    # The exception's text is for the log, not for the page.
    assert "not staff" not in html


@pytest.mark.parametrize(
    ("language", "title"),
    [("en", "Please send the form again"), ("ja", "もう一度送信してください")],
)
def test_csrf_failure_page_without_a_cookie(language, title):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        reverse("login"),
        {"username": "a", "password": "b"},
        headers={"accept-language": language},
    )
    assert response.status_code == 403
    assert h1(response) == title
    with translation.override(language):
        cookies = gettext(
            "This site needs cookies to check that a form comes from you. Allow cookies for "
            "this site, then reload the page and send the form again."
        )
    assert cookies in response.content.decode()


def test_csrf_failure_page_with_a_stale_token():
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("login"))  # sets the CSRF cookie
    response = client.post(
        reverse("login"),
        {"username": "a", "password": "b", "csrfmiddlewaretoken": "x" * 64},
        headers={"accept-language": "en"},
    )
    html = response.content.decode()
    assert response.status_code == 403
    assert "so the form could not be checked. Nothing was saved." in html
    assert "Allow cookies" not in html


def test_500_page_needs_no_database(django_assert_num_queries):
    request = RequestFactory().get("/events/")
    with translation.override("ja"), django_assert_num_queries(0):
        response = handler500(request)
    assert response.status_code == 500
    assert h1(response) == "問題が発生しました"


def test_500_page_works_without_the_static_files_manifest(settings):
    """In production the stylesheet's hashed name comes from collectstatic's manifest; the
    error page must render even when that (or anything else) is what broke."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    settings.STATIC_ROOT = "/nonexistent-static-root"
    response = handler500(RequestFactory().get("/events/"))
    assert response.status_code == 500
    assert 'href="/static/css/site.css"' in response.content.decode()
