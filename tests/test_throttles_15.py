"""Who is counted (#15 "Who gets in"): X-Forwarded-For is trusted only behind a configured
proxy (TRUSTED_PROXY_COUNT → REST_FRAMEWORK NUM_PROXIES), the deck-check page is throttled
with the API's deck-check budget, and the counts live in the default cache."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.cache import cache, caches
from django.test import RequestFactory, override_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle

from config.throttling import client_address

pytestmark = pytest.mark.django_db

API_CHECK = "/api/v1/decks/check/"
PAGE_CHECK = "/decks/check/"
BODY = {"format": "crossover", "decklist": "1 nothing\n"}


@pytest.fixture
def two_a_minute(monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "rate", "2/min", raising=False)


def api_post(client, **headers):
    return client.post(API_CHECK, BODY, content_type="application/json", headers=headers)


def page_post(client, **headers):
    return client.post(PAGE_CHECK, BODY, headers=headers)


def behind_proxies(count):
    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "NUM_PROXIES": count})


def test_settings_trust_no_forwarded_header_by_default():
    assert settings.TRUSTED_PROXY_COUNT == 0
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0


def test_api_forwarded_for_does_not_reset_the_anonymous_limit(client, two_a_minute):
    assert api_post(client, x_forwarded_for="198.51.100.1").status_code != 429
    assert api_post(client, x_forwarded_for="198.51.100.2").status_code != 429
    third = api_post(client, x_forwarded_for="198.51.100.3")
    assert third.status_code == 429
    assert int(third["Retry-After"]) > 0


def test_client_address_ignores_forwarded_for_by_default():
    request = RequestFactory().get(
        "/", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.1"
    )
    assert client_address(request) == "203.0.113.7"


def test_client_address_behind_one_proxy_is_the_address_the_proxy_gave():
    # The client may put anything first; the proxy appends the address it saw.
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.9"
    )
    with behind_proxies(1):
        assert client_address(request) == "198.51.100.9"
    no_header = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2")
    with behind_proxies(1):
        assert client_address(no_header) == "10.0.0.2"


def test_behind_one_proxy_each_client_has_its_own_budget(client, two_a_minute):
    with behind_proxies(1):
        assert api_post(client, x_forwarded_for="198.51.100.1").status_code != 429
        assert api_post(client, x_forwarded_for="198.51.100.1").status_code != 429
        assert api_post(client, x_forwarded_for="198.51.100.1").status_code == 429
        # A spoofed first entry does not help: the proxy's entry is the last one.
        spoofed = api_post(client, x_forwarded_for="9.9.9.9, 198.51.100.1")
        assert spoofed.status_code == 429
        assert api_post(client, x_forwarded_for="198.51.100.2").status_code != 429


def _settings_in_fresh_interpreter(**variables):
    env = {k: v for k, v in os.environ.items() if k not in ("TRUSTED_PROXY_COUNT", "DEBUG")}
    env.update(variables, DJANGO_SETTINGS_MODULE="config.settings", DEBUG="true")
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.TRUSTED_PROXY_COUNT, settings.REST_FRAMEWORK['NUM_PROXIES'])"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_trusted_proxy_count_comes_from_the_environment():
    result = _settings_in_fresh_interpreter(TRUSTED_PROXY_COUNT="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "1"]
    bad = _settings_in_fresh_interpreter(TRUSTED_PROXY_COUNT="one")
    assert bad.returncode != 0
    assert "TRUSTED_PROXY_COUNT='one' is not a whole number ≥ 0." in bad.stderr


def test_check_page_answers_429_after_the_limit(client, two_a_minute):
    assert page_post(client).status_code == 200
    assert page_post(client, x_forwarded_for="198.51.100.2").status_code == 200
    third = page_post(client, x_forwarded_for="198.51.100.3")
    assert third.status_code == 429
    assert int(third["Retry-After"]) > 0
    assert "Too many requests" in third.content.decode()
    # Looking at the page is not counted.
    assert client.get(PAGE_CHECK).status_code == 200


def test_check_page_429_is_translated(client, two_a_minute):
    page_post(client)
    page_post(client)
    third = page_post(client, accept_language="ja")
    assert third.status_code == 429
    assert "リクエストが多すぎます" in third.content.decode()


def test_check_page_live_report_gets_the_message_alone(client, two_a_minute):
    page_post(client, hx_request="true")
    page_post(client, hx_request="true")
    third = page_post(client, hx_request="true")
    assert third.status_code == 429
    assert int(third["Retry-After"]) > 0
    body = third.content.decode()
    assert "Please wait a moment and try again." in body
    assert "<html" not in body


def test_check_page_and_api_share_one_budget(client, two_a_minute):
    assert page_post(client).status_code == 200
    assert api_post(client).status_code != 429
    assert page_post(client).status_code == 429
    assert api_post(client).status_code == 429


def test_check_page_signed_in_player_counts_by_the_user_rate(
    client, two_a_minute, django_user_model
):
    client.force_login(django_user_model.objects.create_user("player", password="x"))
    for _ in range(3):
        assert page_post(client).status_code == 200


def test_throttles_count_in_the_default_cache(client, two_a_minute):
    # With CACHE_URL set the default cache is Redis, shared by every web worker.
    assert SimpleRateThrottle.cache is cache
    page_post(client)
    assert len(caches["default"].get("throttle_anon_127.0.0.1")) == 1


def test_pages_tell_htmx_to_show_a_429_answer(client):
    # htmx 2 swaps no 4xx answer by default: the throttled deck check's message would vanish.
    body = client.get("/decks/check/").content.decode()
    assert '{"code":"429","swap":true}' in body
