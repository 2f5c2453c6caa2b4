"""Every input serializer field carries the limits of the model field it writes (issue
#15): a 101-character penalty infraction was a 500 on PostgreSQL (``varchar(100)``), not a
400 naming the field."""

import importlib
import inspect

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from rest_framework import serializers

from tournaments.api.limits import ModelCharField, ModelIntegerField, integer_range
from tournaments.models import Penalty

API_MODULES = [
    "cardpool.api",
    "decks.api",
    "rules.api",
    "tournaments.api.event_file",
    "tournaments.api.exports",
    "tournaments.api.serializers",
    "tournaments.api.views",
    "tournaments.api.views_deckcheck",
    "tournaments.api.views_lists",
    "tournaments.api.views_why",
]
# Serializers that take input without "Input", "Request" or "Query" in their name.
ALSO_INPUT = {"DeckSerializer", "CountedCardSerializer"}


def _serializer_classes():
    for module_name in API_MODULES:
        module = importlib.import_module(module_name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, serializers.Serializer) and cls.__module__ == module_name:
                yield name, cls


def _takes_input(name, cls) -> bool:
    # The ModelSerializers of the API only answer (commands take *Input serializers).
    return any(word in name for word in ("Input", "Request", "Query")) or name in ALSO_INPUT


def _writable_fields(serializer, prefix=""):
    for name, field in serializer.fields.items():
        if field.read_only:
            continue
        yield from _writable(field, prefix + name)


def _writable(field, label):
    if isinstance(field, (serializers.ListField, serializers.DictField)):
        # A list or dict of plain dicts (games) is checked by its command's service.
        if not isinstance(field.child, (serializers.DictField, serializers.JSONField)):
            yield from _writable(field.child, label + "[]")
    elif isinstance(field, serializers.ListSerializer):
        yield from _writable_fields(field.child, label + "[].")
    elif isinstance(field, serializers.Serializer):
        yield from _writable_fields(field, label + ".")
    else:
        yield label, field


def _model_field_of(serializer_cls, name, field):
    """The model field ``field`` writes: declared (ModelCharField, ModelIntegerField) or
    derived by a ModelSerializer from its model."""
    if isinstance(field, (ModelCharField, ModelIntegerField)):
        return field.model_field
    meta = getattr(serializer_cls, "Meta", None)
    if issubclass(serializer_cls, serializers.ModelSerializer) and meta:
        try:
            return meta.model._meta.get_field(field.source)
        except FieldDoesNotExist:  # a computed source writes no column
            return None
    return None


def _fields():
    for name, cls in _serializer_classes():
        if not _takes_input(name, cls):
            continue
        for field_name, field in _writable_fields(cls()):
            yield f"{cls.__module__}.{name}.{field_name}", cls, field


INPUT_FIELDS = sorted(_fields(), key=lambda row: row[0])


def test_walk_sees_the_input_serializers():
    names = {label.rsplit(".", 1)[0].rsplit(".", 1)[-1] for label, _, _ in INPUT_FIELDS}
    assert {
        "PenaltyInputSerializer",
        "EventCreateInputSerializer",
        "DeckSerializer",
        "DeckCheckInputSerializer",
        "SearchQuerySerializer",
    } <= names


def _problems():
    problems = []
    for label, cls, field in INPUT_FIELDS:
        column = _model_field_of(cls, label.rsplit(".", 1)[-1], field)
        if isinstance(field, serializers.CharField) and not isinstance(
            field, serializers.ChoiceField
        ):
            if field.max_length is None:
                problems.append(f"{label}: no max_length")
            elif column is not None and column.max_length not in (None, field.max_length):
                problems.append(
                    f"{label}: max_length {field.max_length}, model "
                    f"{column.model.__name__}.{column.name} {column.max_length}"
                )
        elif isinstance(field, serializers.IntegerField):
            if field.max_value is None or field.min_value is None:
                problems.append(f"{label}: no min_value/max_value")
            elif isinstance(column, models.IntegerField):
                low, high = integer_range(column)
                if field.max_value > high or field.min_value < low:
                    problems.append(
                        f"{label}: range {field.min_value}..{field.max_value} beyond model "
                        f"{column.model.__name__}.{column.name} {low}..{high}"
                    )
    return problems


def test_every_input_field_has_the_model_limits():
    assert _problems() == []


def test_penalty_infraction_of_101_characters_is_400_naming_the_field():
    from tournaments.api.serializers import PenaltyInputSerializer

    limit = Penalty._meta.get_field("infraction").max_length
    assert limit == 100
    serializer = PenaltyInputSerializer(data={"kind": "warning", "infraction": "x" * 101})
    assert not serializer.is_valid()
    assert list(serializer.errors) == ["infraction"]
    assert serializer.errors["infraction"][0].code == "max_length"
    assert PenaltyInputSerializer(data={"kind": "warning", "infraction": "x" * 100}).is_valid()


@pytest.mark.django_db
def test_event_create_name_and_capacity_limits():
    from tournaments.api.serializers import EventCreateInputSerializer

    data = {"name": "x" * 201, "format": "nope", "date": "2026-01-01", "capacity": 2**40}
    serializer = EventCreateInputSerializer(data=data)
    assert not serializer.is_valid()
    assert serializer.errors["name"][0].code == "max_length"
    assert serializer.errors["capacity"][0].code == "max_value"


@pytest.mark.django_db
def test_staff_username_longer_than_the_user_model_allows_is_refused():
    from tournaments.api.serializers import StaffInputSerializer

    limit = get_user_model()._meta.get_field("username").max_length
    serializer = StaffInputSerializer(data={"username": "u" * (limit + 1), "role": "judge"})
    assert not serializer.is_valid()
    assert serializer.errors["username"][0].code == "max_length"
