"""Claiming a placeholder account (#14): the organizer's one-time link on the staff player
page, the player's page behind it, and every refusal (expired, used, unknown, an account
in use, a co-organizer, a judge, an outsider)."""

import datetime as dt
import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.tournaments.factories import UserFactory, register_all
from tournaments import policy, services
from tournaments.audit_texts import ACTIONS
from tournaments.models import AuditEntry, ClaimLink, FileIdentity
from tournaments.services import claims
from tournaments.services.audit import NOT_STANDINGS_ACTIONS

User = get_user_model()
PASSWORD = "violet-harbour-lantern-58"
LINK_RE = re.compile(r"/accounts/claim/([A-Za-z0-9_-]{43})/")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make_placeholder(user) -> None:
    """As the event-file import leaves an unknown username: inactive, no password."""
    User.objects.filter(pk=user.pk).update(
        is_active=False, password=make_password(None), last_login=None
    )


@pytest.fixture
def ghost_registration(staffed_event):
    player = UserFactory(username="ghost")
    registration = register_all(staffed_event, [player])[0]
    make_placeholder(player)
    # A placeholder belongs to the event whose import made it (#21).
    FileIdentity.objects.create(event=staffed_event, name="ghost", user=player)
    registration.player.refresh_from_db()
    return registration


def link_url(event, registration) -> str:
    return reverse("tournaments:player_claim_link", args=[event.pk, registration.pk])


def player_url(event, registration) -> str:
    return reverse("tournaments:player_detail", args=[event.pk, registration.pk])


def made_link(organizer, registration) -> str:
    access = policy.access_for(organizer, registration.event)
    return claims.make_claim_link(registration, actor=organizer, access=access).token


def claim_url(token: str) -> str:
    return reverse("claim_account", args=[token])


# --- the service --------------------------------------------------------------------------


def test_claim_link_stored_hashed_expires_in_14_days_and_audited(organizer, ghost_registration):
    before = timezone.now()
    token = made_link(organizer, ghost_registration)
    link = ClaimLink.objects.get()
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(ClaimLink.objects.filter(pk=link.pk).values().get())
    assert (link.user, link.event, link.created_by, link.used_at) == (
        ghost_registration.player,
        ghost_registration.event,
        organizer,
        None,
    )
    assert before + dt.timedelta(days=14) <= link.expires_at
    assert link.expires_at <= timezone.now() + dt.timedelta(days=14)
    entry = AuditEntry.objects.filter(action="registration.claim_link_made").get()
    assert (entry.actor, entry.object_type, entry.object_id) == (
        organizer,
        "registration",
        ghost_registration.pk,
    )


def test_claim_actions_have_texts_and_leave_standings_alone():
    for action in ("registration.claim_link_made", "registration.account_claimed"):
        assert action in ACTIONS
        assert action in NOT_STANDINGS_ACTIONS


def test_claim_sets_password_email_activates_and_spends_link(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    user = claims.claim_account(token, password=PASSWORD, email="ghost@example.org")
    user.refresh_from_db()
    assert (user.is_active, user.email, user.check_password(PASSWORD)) == (
        True,
        "ghost@example.org",
        True,
    )
    assert ClaimLink.objects.get().used_at is not None
    entry = AuditEntry.objects.filter(action="registration.account_claimed").get()
    assert (entry.actor, entry.object_id) == (user, ghost_registration.pk)
    with pytest.raises(claims.ClaimRefused) as refused:
        claims.claim_account(token, password=PASSWORD)
    assert refused.value.code == "link_used"


def test_claim_refuses_weak_password_and_bad_email_writing_nothing(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    with pytest.raises(services.InvalidInput) as refused:
        claims.claim_account(token, password="12345678")
    assert (refused.value.code, refused.value.details["field"]) == ("password_invalid", "password")
    with pytest.raises(services.InvalidInput) as refused:
        claims.claim_account(token, password=PASSWORD, email="not-an-address")
    assert refused.value.code == "email_invalid"
    player = User.objects.get(pk=ghost_registration.player_id)
    assert (player.is_active, player.has_usable_password()) == (False, False)
    assert ClaimLink.objects.get().used_at is None


def test_claim_refuses_expired_and_unknown_links(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    later = timezone.now() + dt.timedelta(days=14, seconds=1)
    with pytest.raises(claims.ClaimRefused) as refused:
        claims.claim_account(token, password=PASSWORD, now=later)
    assert refused.value.code == "link_expired"
    with pytest.raises(claims.ClaimRefused) as refused:
        claims.find_claim_link("x" * 43)
    assert refused.value.code == "unknown_link"


def test_new_link_ends_the_earlier_one(organizer, ghost_registration):
    first = made_link(organizer, ghost_registration)
    second = made_link(organizer, ghost_registration)
    with pytest.raises(claims.ClaimRefused) as refused:
        claims.find_claim_link(first)
    assert refused.value.code == "link_expired"
    assert claims.find_claim_link(second).user == ghost_registration.player


def test_no_link_for_an_account_in_use(organizer, staffed_event, make_players):
    registration = register_all(staffed_event, make_players(1))[0]
    with pytest.raises(services.InvalidState) as refused:
        made_link(organizer, registration)
    assert refused.value.code == "not_a_placeholder"
    # Deactivated by an administrator: it keeps its password, so it is no placeholder.
    User.objects.filter(pk=registration.player_id).update(is_active=False)
    registration.player.refresh_from_db()
    with pytest.raises(services.InvalidState):
        made_link(organizer, registration)
    assert ClaimLink.objects.count() == 0


def test_link_refused_once_the_account_became_active(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    User.objects.filter(pk=ghost_registration.player_id).update(is_active=True)
    with pytest.raises(claims.ClaimRefused) as refused:
        claims.claim_account(token, password=PASSWORD)
    assert refused.value.code == "account_active"


def test_only_the_organizer_or_a_site_admin_makes_links(
    ghost_registration, co_organizer, judge, outsider
):
    event = ghost_registration.event
    for user in (co_organizer, judge, outsider):
        with pytest.raises(services.NotAllowed) as refused:
            made_link(user, ghost_registration)
        assert refused.value.code == "not_event_owner"
    admin = UserFactory(username="site-admin", is_superuser=True, is_staff=True)
    assert made_link(admin, ghost_registration)
    assert ClaimLink.objects.get().created_by == admin
    assert event.organizer != admin


# --- the pages ----------------------------------------------------------------------------


def test_staff_page_button_makes_link_shown_once_with_qr(organizer, ghost_registration):
    event = ghost_registration.event
    client = signed_in(organizer)
    page = client.get(player_url(event, ghost_registration)).content.decode()
    assert link_url(event, ghost_registration) in page
    assert "Make a claim link" in page
    response = client.post(link_url(event, ghost_registration))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert response["Referrer-Policy"] == "same-origin"
    body = response.content.decode()
    token = LINK_RE.search(body).group(1)
    assert f'data-url="http://testserver/accounts/claim/{token}/"' in body
    assert ClaimLink.objects.get().token_hash == hashlib.sha256(token.encode()).hexdigest()
    # Shown once: the player page never shows it again.
    assert token not in client.get(player_url(event, ghost_registration)).content.decode()


def test_staff_page_has_no_button_for_an_account_in_use(organizer, staffed_event, make_players):
    registration = register_all(staffed_event, make_players(1))[0]
    client = signed_in(organizer)
    page = client.get(player_url(staffed_event, registration)).content.decode()
    assert link_url(staffed_event, registration) not in page
    response = client.post(link_url(staffed_event, registration))
    assert response.status_code == 302
    assert ClaimLink.objects.count() == 0


def test_staff_link_refused_to_judge_co_organizer_and_outsider(
    ghost_registration, co_organizer, judge, outsider
):
    event = ghost_registration.event
    for user in (co_organizer, judge, outsider):
        client = signed_in(user)
        assert client.post(link_url(event, ghost_registration)).status_code == 403
        if user != outsider:  # the judges see the page, not the button
            page = client.get(player_url(event, ghost_registration)).content.decode()
            assert link_url(event, ghost_registration) not in page
    anonymous = Client().post(link_url(event, ghost_registration))
    assert anonymous.status_code == 302
    assert "/accounts/login/" in anonymous["Location"]
    assert ClaimLink.objects.count() == 0


def test_staff_link_needs_post(organizer, ghost_registration):
    event = ghost_registration.event
    assert signed_in(organizer).get(link_url(event, ghost_registration)).status_code == 405


def test_claim_page_sets_password_and_signs_in(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    client = Client()
    page = client.get(claim_url(token))
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"]
    assert page["Referrer-Policy"] == "same-origin"
    assert "ghost" in page.content.decode()
    response = client.post(
        claim_url(token), {"password1": PASSWORD, "password2": PASSWORD, "email": ""}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "tournaments:event_detail", args=[ghost_registration.event_id]
    )
    player = User.objects.get(pk=ghost_registration.player_id)
    assert (player.is_active, player.email) == (True, "")
    assert int(client.session["_auth_user_id"]) == player.pk
    # Spent: the link now refuses, and a sign-in with the new password works.
    again = Client().get(claim_url(token))
    assert again.status_code == 410
    assert "has been used already" in again.content.decode()
    assert Client().login(username="ghost", password=PASSWORD)


def test_claim_page_shows_field_errors(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    client = Client()
    response = client.post(claim_url(token), {"password1": PASSWORD, "password2": PASSWORD + "x"})
    assert response.status_code == 400
    assert response.context["form"].errors["password2"] == ["The two passwords differ."]
    response = client.post(claim_url(token), {"password1": "ghost", "password2": "ghost"})
    assert response.status_code == 400
    assert "password1" in response.context["form"].errors
    assert User.objects.get(pk=ghost_registration.player_id).is_active is False


def test_claim_page_refusals_are_clear(organizer, ghost_registration):
    client = Client()
    response = client.get(claim_url("nope"))
    assert response.status_code == 404
    assert "This claim link is not valid" in response.content.decode()
    token = made_link(organizer, ghost_registration)
    ClaimLink.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    response = client.get(claim_url(token))
    assert response.status_code == 410
    assert "has expired" in response.content.decode()
    token = made_link(organizer, ghost_registration)
    User.objects.filter(pk=ghost_registration.player_id).update(is_active=True)
    response = client.post(claim_url(token), {"password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 409
    assert "already in use" in response.content.decode()
    assert not User.objects.get(pk=ghost_registration.player_id).has_usable_password()


def test_claim_page_in_japanese(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    client = Client(HTTP_ACCEPT_LANGUAGE="ja")
    client.cookies["django_language"] = "ja"
    body = client.get(claim_url(token)).content.decode()
    assert "アカウント" in body
    assert "Claim your account" not in body


def test_claim_page_queries_fixed(organizer, ghost_registration):
    token = made_link(organizer, ghost_registration)
    with CaptureQueriesContext(connection) as queries:
        assert Client().get(claim_url(token)).status_code == 200
    assert len(queries) == 1
