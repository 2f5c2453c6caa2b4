"""API tokens may expire (issue #21): the lifetime is chosen when the token is made (on
the account's and the event's token pages), an expired token is refused with 401
``token_expired``, stays listed (marked) until revoked and no longer counts against the
quota; the lists show when each token was last used and when it expires."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from rest_framework.test import APIClient

from tournaments import tokens
from tournaments.models import ApiToken, TokenScope
from tournaments.services.errors import InvalidInput

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _language_reset():
    """A page asked for in Japanese leaves Japanese active in this thread (the locale
    middleware activates, nothing deactivates): the next test starts in English."""
    yield
    translation.deactivate()


API = "/api/v1"
ACCOUNT_TOKENS = "/accounts/tokens/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def local(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


def expire(token: ApiToken, at: dt.datetime) -> None:
    ApiToken.objects.filter(pk=token.pk).update(expires_at=at)


# --- choosing the expiry ------------------------------------------------------------------


@pytest.mark.parametrize(("choice", "days"), [("7", 7), ("30", 30), ("90", 90), ("365", 365)])
def test_token_page_makes_a_token_that_expires(organizer, choice, days):
    before = timezone.now()
    response = signed_in(organizer).post(
        ACCOUNT_TOKENS, {"name": "bot", "scope": "read", "expires": choice}
    )
    after = timezone.now()
    assert response.status_code == 200
    token = ApiToken.objects.get()
    assert before + dt.timedelta(days=days) <= token.expires_at <= after + dt.timedelta(days=days)
    assert f"expires {local(token.expires_at)}" in response.content.decode()


@pytest.mark.parametrize("data", [{"expires": ""}, {}])
def test_token_page_makes_a_token_without_expiry(organizer, data):
    response = signed_in(organizer).post(ACCOUNT_TOKENS, {"name": "bot", "scope": "read", **data})
    assert response.status_code == 200
    assert ApiToken.objects.get().expires_at is None
    assert "never expires" in response.content.decode()


def test_token_page_offers_90_days_first(organizer):
    page = signed_in(organizer).get(ACCOUNT_TOKENS)
    text = page.content.decode()
    assert '<option value="90" selected>In 90 days</option>' in text
    assert '<option value="">No expiry</option>' in text


def test_token_page_refuses_an_unknown_expiry(organizer):
    response = signed_in(organizer).post(
        ACCOUNT_TOKENS, {"name": "bot", "scope": "read", "expires": "10000"}
    )
    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["expires"]
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    "offset", [dt.timedelta(seconds=-1), dt.timedelta(0), dt.timedelta(days=367)]
)
def test_create_token_refuses_an_expiry_in_the_past_or_too_far(organizer, offset):
    with pytest.raises(InvalidInput) as refused:
        tokens.create_token(
            organizer, name="bot", scope=TokenScope.READ, expires_at=timezone.now() + offset
        )
    assert (refused.value.code, refused.value.details["field"]) == ("invalid_expiry", "expires")
    assert not ApiToken.objects.exists()


def test_event_tokens_page_offers_the_expiry(staffed_event, judge):
    url = reverse("tournaments:event_tokens", args=[staffed_event.pk])
    response = signed_in(judge).post(url, {"name": "overlay", "scope": "read", "expires": "7"})
    assert response.status_code == 200
    token = ApiToken.objects.get()
    assert (token.event_id, token.user_id) == (staffed_event.pk, judge.pk)
    assert token.expires_at - token.created_at == pytest.approx(
        dt.timedelta(days=7), abs=dt.timedelta(seconds=5)
    )


def test_outsider_cannot_make_an_event_token_with_an_expiry(staffed_event, outsider):
    url = reverse("tournaments:event_tokens", args=[staffed_event.pk])
    response = signed_in(outsider).post(url, {"name": "x", "scope": "read", "expires": "7"})
    assert response.status_code == 403
    assert not ApiToken.objects.exists()


# --- an expired token ---------------------------------------------------------------------


def test_expired_token_is_refused_with_a_clear_401(organizer, staffed_event):
    new = tokens.create_token(
        organizer, name="bot", scope=TokenScope.READ, expires_at=timezone.now() + dt.timedelta(1)
    )
    assert bearer(new.secret).get(f"{API}/events/{staffed_event.pk}/").status_code == 200
    last_used = ApiToken.objects.get().last_used_at
    expire(new.token, dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC))
    response = bearer(new.secret).get(f"{API}/events/{staffed_event.pk}/")
    assert response.status_code == 401
    assert response.json() == {
        "code": "token_expired",
        "message": "the token expired at 2026-01-02T03:04:05+00:00; "
        "make a new one on the API tokens page",
        "details": {},
    }
    # A refused token is no use: it is not recorded as used.
    assert ApiToken.objects.get().last_used_at == last_used


def test_token_works_until_the_moment_it_expires(organizer):
    now = timezone.now()
    new = tokens.create_token(
        organizer, name="bot", scope=TokenScope.READ, expires_at=now + dt.timedelta(hours=1)
    )
    assert tokens.authenticate(new.secret, now=now + dt.timedelta(minutes=59)).pk == new.token.pk
    with pytest.raises(tokens.TokenInvalid) as refused:
        tokens.authenticate(new.secret, now=now + dt.timedelta(hours=1))
    assert refused.value.code == "token_expired"


def test_expired_token_is_listed_as_expired_until_revoked(organizer):
    new = tokens.create_token(organizer, name="old bot", scope=TokenScope.READ)
    expire(new.token, timezone.now() - dt.timedelta(days=1))
    client = signed_in(organizer)
    page = client.get(ACCOUNT_TOKENS)
    text = page.content.decode()
    assert '<span class="badge badge--warn">Expired</span>' in text
    assert [t.expired for t in page.context["tokens"]] == [True]
    client.post(reverse("tokens:account_token_revoke", args=[new.token.pk]))
    assert client.get(ACCOUNT_TOKENS).context["tokens"] == []


def test_expired_tokens_do_not_count_against_the_quota(organizer, monkeypatch):
    monkeypatch.setattr(tokens, "MAX_ACTIVE_TOKENS", 1)
    old = tokens.create_token(organizer, name="old", scope=TokenScope.READ)
    with pytest.raises(InvalidInput):
        tokens.create_token(organizer, name="refused", scope=TokenScope.READ)
    expire(old.token, timezone.now() - dt.timedelta(seconds=1))
    assert tokens.create_token(organizer, name="new", scope=TokenScope.READ).token.name == "new"


# --- the lists: last use and expiry -------------------------------------------------------


def test_lists_show_last_use_and_expiry_as_date_and_time(organizer, staffed_event):
    used = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
    ends = dt.datetime(2027, 2, 1, 0, 0, tzinfo=dt.UTC)
    tokens.create_token(organizer, name="mine", scope=TokenScope.READ)
    tokens.create_token(organizer, name="overlay", scope=TokenScope.READ, event=staffed_event)
    ApiToken.objects.update(last_used_at=used, expires_at=ends)
    client = signed_in(organizer)
    for url in (ACCOUNT_TOKENS, reverse("tournaments:event_tokens", args=[staffed_event.pk])):
        text = client.get(url).content.decode()
        assert '<td data-label="Last used">2026-11-20 12:15</td>' in text, url
        assert '<td data-label="Expires">2027-02-01 09:00</td>' in text, url


def test_token_page_in_japanese(organizer):
    tokens.create_token(organizer, name="mine", scope=TokenScope.READ)
    page = signed_in(organizer).get(ACCOUNT_TOKENS, HTTP_ACCEPT_LANGUAGE="ja")
    text = page.content.decode()
    assert '<th scope="col">有効期限</th>' in text
    assert "無期限" in text
    assert '<option value="90" selected>90日後</option>' in text
