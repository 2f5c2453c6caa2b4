"""Brute force on the login pages (#15 "Who gets in"): after AXES_FAILURE_LIMIT wrong
passwords for one username from one address, that pair is refused even with the right
password, with a clear page; other users and other addresses are not; staff unlock in the
admin."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client, override_settings

from tests.tournaments.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
USER_LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
LOCKED = "Too many failed attempts to log in to this account from your address."


@pytest.fixture
def player():
    return UserFactory(username="player", password=PASSWORD)


@pytest.fixture
def staff():
    return UserFactory(username="staff", password=PASSWORD, is_staff=True, is_superuser=True)


def attempt(client, url, username, password, **headers):
    return client.post(url, {"username": username, "password": password}, headers=headers)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail(client, url, username, times, **headers):
    for _ in range(times):
        attempt(client, url, username, "wrong password", **headers)


def test_settings_lock_out_the_username_and_address_pair():
    assert settings.AXES_FAILURE_LIMIT == 10
    assert settings.AXES_COOLOFF_TIME.total_seconds() == 15 * 60
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.AXES_CLIENT_IP_CALLABLE == "config.throttling.client_address"


@pytest.mark.parametrize(("url", "user_fixture"), [(USER_LOGIN, "player"), (ADMIN_LOGIN, "staff")])
def test_login_after_forty_wrong_passwords_is_refused(client, request, url, user_fixture):
    user = request.getfixturevalue(user_fixture)
    fail(client, url, user.username, 40)
    response = attempt(client, url, user.username, PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) == 15 * 60
    body = response.content.decode()
    assert LOCKED in body
    assert "Logging in is blocked for 15 minutes, even with the right password." in body
    assert not logged_in(client)
    attempt_row = AccessAttempt.objects.get(username=user.username)
    # Attempts while locked out count too (the right password among them).
    assert attempt_row.failures_since_start == 41
    assert attempt_row.ip_address == "127.0.0.1"


def test_login_is_counted_exactly_to_the_limit(client, player):
    fail(client, USER_LOGIN, "player", 9)
    response = attempt(client, USER_LOGIN, "player", PASSWORD)
    assert response.status_code == 302
    assert logged_in(client)
    # A successful login starts the count again.
    assert not AccessAttempt.objects.filter(username="player").exists()


def test_the_tenth_failure_locks(client, player):
    fail(client, USER_LOGIN, "player", 9)
    tenth = attempt(client, USER_LOGIN, "player", "wrong password")
    assert tenth.status_code == 429
    assert LOCKED in tenth.content.decode()


def test_lockout_page_is_translated(client, player):
    fail(client, USER_LOGIN, "player", 10)
    response = attempt(client, USER_LOGIN, "player", PASSWORD, accept_language="ja")
    assert response.status_code == 429
    assert "ログインが一時的に停止されています" in response.content.decode()


def test_another_user_at_the_same_address_is_not_locked_out(client, player):
    UserFactory(username="neighbour", password=PASSWORD)
    fail(client, USER_LOGIN, "player", 40)
    response = attempt(Client(), USER_LOGIN, "neighbour", PASSWORD)
    assert response.status_code == 302
    other = Client()
    attempt(other, ADMIN_LOGIN, "neighbour", PASSWORD)
    assert attempt(other, USER_LOGIN, "neighbour", PASSWORD).status_code == 302


def test_the_same_user_from_another_address_is_not_locked_out(player):
    attacker = Client(REMOTE_ADDR="203.0.113.66")
    fail(attacker, USER_LOGIN, "player", 40)
    assert attempt(attacker, USER_LOGIN, "player", PASSWORD).status_code == 429
    venue = Client(REMOTE_ADDR="198.51.100.10")
    assert attempt(venue, USER_LOGIN, "player", PASSWORD).status_code == 302
    assert logged_in(venue)


def test_forwarded_for_does_not_escape_the_lockout(client, player):
    for number in range(40):
        attempt(client, USER_LOGIN, "player", "wrong", x_forwarded_for=f"192.0.2.{number}")
    response = attempt(client, USER_LOGIN, "player", PASSWORD, x_forwarded_for="192.0.2.200")
    assert response.status_code == 429


def test_behind_a_trusted_proxy_the_lockout_follows_the_forwarded_address(player):
    behind_one = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    with override_settings(REST_FRAMEWORK=behind_one):
        proxy = Client(REMOTE_ADDR="10.0.0.2")
        fail(proxy, USER_LOGIN, "player", 10, x_forwarded_for="203.0.113.66")
        locked = attempt(proxy, USER_LOGIN, "player", PASSWORD, x_forwarded_for="203.0.113.66")
        assert locked.status_code == 429
        assert AccessAttempt.objects.get().ip_address == "203.0.113.66"
        # Another player's phone behind the same proxy logs in.
        other = attempt(proxy, USER_LOGIN, "player", PASSWORD, x_forwarded_for="198.51.100.4")
        assert other.status_code == 302


def test_admin_unlocks_by_deleting_the_attempt(player, staff):
    attacker = Client()
    fail(attacker, USER_LOGIN, "player", 10)
    assert attempt(attacker, USER_LOGIN, "player", PASSWORD).status_code == 429
    admin = Client(REMOTE_ADDR="198.51.100.1")
    admin.force_login(staff)
    row = AccessAttempt.objects.get(username="player")
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200
    assert "player" in listing.content.decode()
    deleted = admin.post(f"/admin/axes/accessattempt/{row.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert not AccessAttempt.objects.exists()
    assert attempt(attacker, USER_LOGIN, "player", PASSWORD).status_code == 302
    assert logged_in(attacker)


def test_a_player_cannot_see_or_unlock_attempts(player):
    fail(Client(), USER_LOGIN, "player", 10)
    outsider = Client()
    outsider.force_login(UserFactory(username="outsider"))
    assert outsider.get("/admin/axes/accessattempt/").status_code == 302
    row = AccessAttempt.objects.get()
    outsider.post(f"/admin/axes/accessattempt/{row.pk}/delete/", {"post": "yes"})
    assert AccessAttempt.objects.filter(pk=row.pk).exists()


def test_test_client_login_still_works(client, player):
    # django-axes needs the request in authenticate(); tests/conftest.py gives Client.login one.
    assert client.login(username="player", password=PASSWORD)
