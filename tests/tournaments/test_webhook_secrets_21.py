"""Webhook secrets (issue #21): the secret was in clear on every manager's edit page.
It is now shown once (the page that answers the creation, or the rotation of the
secret; never stored by the browser), masked on the edit page, and replaced by "Rotate
secret" (a confirmation, then a POST; audited without the secret; managers only)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tournaments import policy, services
from tournaments.models import AuditEntry, StaffRole, Webhook, WebhookKind
from tournaments.services import webhook_secrets
from tournaments.services.errors import NotAllowed

from .factories import UserFactory, open_event, register_all

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _language_reset():
    """A page asked for in Japanese leaves Japanese active in this thread (the locale
    middleware activates, nothing deactivates): the next test starts in English."""
    yield
    translation.deactivate()


SECRET = "a-test-secret-of-some-length-Zx4Q"


@pytest.fixture
def hook(organizer, crossover):
    event = open_event(organizer, crossover)
    return Webhook.objects.create(
        event=event,
        url="https://93.184.215.14/hook",
        secret=SECRET,
        kinds=[WebhookKind.ROUND_PUBLISHED],
        created_by=organizer,
    )


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def access_of(user, hook):
    return policy.access_for(user, hook.event)


def edit_url(hook) -> str:
    return reverse("tournaments:webhook_edit", args=[hook.event_id, hook.pk])


def rotate_url(hook) -> str:
    return reverse("tournaments:webhook_rotate_secret", args=[hook.event_id, hook.pk])


# --- masked on the edit page ---------------------------------------------------------------


def test_edit_page_shows_the_secret_masked(organizer, hook):
    response = signed_in(organizer).get(edit_url(hook))
    assert response.status_code == 200
    text = response.content.decode()
    assert SECRET not in text
    assert SECRET[:8] not in text
    assert ">••••••••Zx4Q</code>" in text
    assert f'href="{rotate_url(hook)}"' in text


def test_saving_the_edit_page_keeps_the_secret(organizer, hook):
    response = signed_in(organizer).post(
        edit_url(hook),
        {"url": "https://93.184.215.15/", "kinds": ["event.finished"], "secret": "x" * 20},
    )
    assert response.status_code == 302
    hook.refresh_from_db()
    assert (hook.url, hook.kinds, hook.secret) == (
        "https://93.184.215.15/",
        ["event.finished"],
        SECRET,
    )


@pytest.mark.parametrize(
    ("secret", "shown"),
    [("s" * 16, "••••••••"), ("s" * 16 + "Zx4Q", "••••••••Zx4Q"), ("", "••••••••")],
)
def test_a_short_secret_shows_none_of_its_characters(secret, shown):
    assert webhook_secrets.masked(secret) == shown


# --- shown once after creation -------------------------------------------------------------


def test_creation_shows_the_secret_once(organizer, crossover):
    event = open_event(organizer, crossover)
    client = signed_in(organizer)
    response = client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {"url": "https://93.184.215.14/", "secret": SECRET, "kinds": ["round.published"]},
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert f'value="{SECRET}"' in response.content.decode()
    hook = Webhook.objects.get()
    assert hook.secret == SECRET
    for url in (edit_url(hook), reverse("tournaments:webhook_list", args=[event.pk])):
        assert SECRET not in client.get(url).content.decode()


# --- rotating ------------------------------------------------------------------------------


def test_rotating_asks_first_then_shows_the_new_secret_once(organizer, hook):
    client = signed_in(organizer)
    confirm = client.get(rotate_url(hook))
    assert confirm.status_code == 200
    assert SECRET not in confirm.content.decode()
    assert '<button type="submit" class="button--danger">Rotate secret</button>' in (
        confirm.content.decode()
    )
    hook.refresh_from_db()
    assert hook.secret == SECRET  # the confirmation page changes nothing
    response = client.post(rotate_url(hook))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    hook.refresh_from_db()
    assert hook.secret != SECRET
    assert len(hook.secret) >= 40
    assert f'value="{hook.secret}"' in response.content.decode()
    assert hook.secret not in client.get(edit_url(hook)).content.decode()


def test_rotation_is_audited_without_the_secret(organizer, hook):
    signed_in(organizer).post(rotate_url(hook))
    hook.refresh_from_db()
    entry = AuditEntry.objects.get(action="webhook.secret_rotated")
    assert (entry.event_id, entry.actor, entry.object_type, entry.object_id) == (
        hook.event_id,
        organizer,
        "webhook",
        hook.pk,
    )
    assert (entry.before, entry.after) == (None, None)
    page = signed_in(organizer).get(reverse("tournaments:audit_log", args=[hook.event_id]))
    text = page.content.decode()
    assert "<strong>Webhook secret rotated</strong>" in text
    assert hook.secret not in text
    assert SECRET not in text


def test_co_organizer_rotates(organizer, co_organizer, hook):
    services.add_staff(hook.event, actor=organizer, user=co_organizer, role=StaffRole.CO_ORGANIZER)
    response = signed_in(co_organizer).post(rotate_url(hook))
    assert response.status_code == 200
    hook.refresh_from_db()
    assert hook.secret != SECRET


@pytest.mark.parametrize("who", ["outsider", "judge", "player"])
def test_others_cannot_rotate(organizer, judge, outsider, make_players, hook, who):
    services.add_staff(hook.event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    (registration,) = register_all(hook.event, make_players(1))
    user = {"outsider": outsider, "judge": judge, "player": registration.player}[who]
    client = signed_in(user)
    for method in ("get", "post"):
        response = getattr(client, method)(rotate_url(hook))
        assert response.status_code == 403, method
        assert SECRET not in response.content.decode()
    hook.refresh_from_db()
    assert hook.secret == SECRET
    assert not AuditEntry.objects.filter(action="webhook.secret_rotated").exists()
    with pytest.raises(NotAllowed):
        webhook_secrets.rotate_secret(hook, actor=user, access=access_of(user, hook))
    hook.refresh_from_db()
    assert hook.secret == SECRET


def test_another_events_organizer_gets_404(crossover, hook):
    other_organizer = UserFactory(username="other-organizer")
    other = open_event(other_organizer, crossover, name="Other Open")
    client = signed_in(other_organizer)
    url = reverse("tournaments:webhook_rotate_secret", args=[other.pk, hook.pk])
    assert client.post(url).status_code == 404
    hook.refresh_from_db()
    assert hook.secret == SECRET


def test_anonymous_is_sent_to_log_in(hook):
    response = Client().post(rotate_url(hook))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    hook.refresh_from_db()
    assert hook.secret == SECRET


def test_rotating_in_japanese(organizer, hook):
    client = signed_in(organizer)
    edit = client.get(edit_url(hook), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert ">シークレットを更新</a>" in edit
    rotated = client.post(rotate_url(hook), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "<h1>新しいWebhookシークレット</h1>" in rotated
    assert "今すぐシークレットをコピーしてください。表示されるのはこの一度だけです。" in rotated
