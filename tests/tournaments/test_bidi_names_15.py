"""Bidirectional embedding, override and isolate characters (U+202A–U+202E, U+2066–U+2069)
are refused in event names and in the names people sign up with (issue #15): they make a
name display as something other than what it is (``Cup\\u202egnp.exe``)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from cardpool.names import BIDI_CONTROLS
from decks.models import Format
from tests.factories import GameFactory
from tournaments.forms_event import EventForm
from tournaments.models import Event

ALL_CONTROLS = [f"U+{ord(char):04X}" for char in BIDI_CONTROLS]


@pytest.fixture
def crossover_format(db):
    return Format.objects.create(game=GameFactory(), slug="crossover", name="CrossOver")


def _event_form_data(name):
    return {
        "name": name,
        "format": Format.objects.get(slug="crossover").pk,
        "date": "2026-12-01",
        "capacity": 8,
        "round_minutes": 50,
        "tiebreak_profile": "standard",
        "top_cut_size": 0,
        "swiss_timeout_policy": "draw",
        "top_cut_timeout_policy": "extra_turns",
        "late_entry_policy": "none",
    }


def test_the_refused_characters_are_the_nine_bidi_controls():
    assert ALL_CONTROLS == [
        "U+202A",
        "U+202B",
        "U+202C",
        "U+202D",
        "U+202E",
        "U+2066",
        "U+2067",
        "U+2068",
        "U+2069",
    ]


@pytest.mark.parametrize("char", list(BIDI_CONTROLS))
def test_event_form_refuses_bidi_control_in_name(crossover_format, char):
    form = EventForm(data=_event_form_data(f"Cup{char}gnp.exe"))
    assert not form.is_valid()
    assert form.errors["name"] == [
        f"Name contains a character that changes the text direction (U+{ord(char):04X}); remove it."
    ]


def test_event_form_accepts_plain_japanese_and_arabic_names(crossover_format):
    for name in ("春の大会", "كأس الربيع", "Spring Cup"):
        form = EventForm(data=_event_form_data(name))
        form.is_valid()
        assert "name" not in form.errors


def test_event_form_error_in_japanese(crossover_format):
    from django.utils import translation

    with translation.override("ja"):
        form = EventForm(data=_event_form_data("Cup\u202egnp"))
        assert not form.is_valid()
        assert form.errors["name"] == [
            "名前に文字の向きを変える文字（U+202E）が含まれています。取り除いてください。"
        ]


@pytest.mark.django_db
def test_api_event_create_refuses_bidi_control_in_name(client, crossover_format):
    user = get_user_model().objects.create_user("organizer15", password="x")
    client.force_login(user)
    response = client.post(
        "/api/v1/events/",
        {"name": "Cup\u2067x", "format": "crossover", "date": "2026-12-01", "capacity": 8},
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_input"
    assert body["details"]["fields"] == {
        "name": ["name contains a character that changes the text direction (U+2067); remove it."]
    }
    assert Event.objects.count() == 0


def test_api_event_update_serializer_refuses_bidi_control_in_name():
    from tournaments.api.serializers import EventUpdateInputSerializer

    serializer = EventUpdateInputSerializer(data={"name": "Cup\u202a"})
    assert not serializer.is_valid()
    assert serializer.errors["name"][0].code == "bidi_control"


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ja"])
def test_signup_refuses_bidi_control_in_username(client, language):
    response = client.post(
        reverse("signup"),
        {"username": "admin\u202e", "password1": "a-Long-pass-123", "password2": "a-Long-pass-123"},
        headers={"accept-language": language},
    )
    assert response.status_code == 200
    expected = {
        "en": "Username contains a character that changes the text direction (U+202E)",
        "ja": "ユーザー名に文字の向きを変える文字（U+202E）が含まれています。",
    }[language]
    assert expected in response.content.decode()
    assert not get_user_model().objects.filter(username__startswith="admin").exists()
