"""The admin shows tournament data to site staff read-only (changes go through the
services, which write the audit log)."""

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.models import (
    AuditEntry,
    Event,
    EventStaff,
    Match,
    Penalty,
    Registration,
    ResultReport,
    Round,
)

from .conftest import build_world_after_round_3, rolled_back_at_the_end
from .factories import UserFactory

pytestmark = pytest.mark.django_db

MODELS = [Event, EventStaff, Registration, Round, Match, Penalty, AuditEntry]


@pytest.fixture(scope="module")
def _player_pks(django_db_setup, django_db_blocker):
    """``event_after_round_3`` built once for the module inside a transaction rolled back
    at its end; each test runs in a savepoint of it (pytest-django's ``db``), as
    ``TestCase.setUpTestData`` does. Returns its players' primary keys."""
    with rolled_back_at_the_end(django_db_blocker):
        yield [player.pk for player in build_world_after_round_3().players]


@pytest.fixture
def event_after_round_3(_player_pks, db):
    """The module's event after round 3 (only its players are asked for here)."""
    players = get_user_model().objects.in_bulk(_player_pks)
    return SimpleNamespace(players=[players[pk] for pk in _player_pks])


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="admin", is_staff=True, is_superuser=True))
    return client


def url(model, action, *args):
    return reverse(f"admin:tournaments_{model._meta.model_name}_{action}", args=args)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_admin_lists_and_shows_read_only(event_after_round_3, admin_client, model):
    response = admin_client.get(url(model, "changelist"))
    assert response.status_code == 200
    obj = model.objects.order_by("pk").first()
    response = admin_client.get(url(model, "change", obj.pk))
    assert response.status_code == 200
    assert b'name="_save"' not in response.content
    assert admin_client.get(url(model, "add")).status_code == 403
    assert admin_client.post(url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=obj.pk).exists()


def test_admin_refuses_non_staff(event_after_round_3, client):
    client.force_login(event_after_round_3.players[0])
    response = client.get(url(AuditEntry, "changelist"))
    assert response.status_code == 302
    assert ResultReport.objects.exists()
