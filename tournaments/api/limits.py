"""Input fields that carry the limits of the model field they are written to, so input
too long or too large is a 400 naming the field, never a database error (a 101-character
infraction was a 500 on PostgreSQL). ``tests/test_serializer_limits_15.py`` walks every
input serializer and compares these limits with the models."""

from __future__ import annotations

from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations
from rest_framework import serializers

from tournaments.services.events import EARLIEST_TIME, LATEST_TIME

# A TextField has no length in the database; what a person types is bounded here.
REASON_CHARS = 500  # as the pages' reason fields (tournaments/forms_rounds.py)
NOTE_CHARS = 2000
DECKLIST_CHARS = 20_000  # as decks.forms.MAX_DECKLIST_CHARS
# Largest id of a (big) auto field: a larger one would overflow the database's integer.
MAX_ID = 2**63 - 1


def model_field(model: type[models.Model], name: str) -> models.Field:
    return model._meta.get_field(name)


def integer_range(field: models.Field) -> tuple[int | None, int | None]:
    """The range of an integer model field on every database (PostgreSQL's ranges; SQLite
    would accept 64-bit values in a small-integer column)."""
    return BaseDatabaseOperations.integer_field_ranges.get(field.get_internal_type(), (None, None))


class ModelCharField(serializers.CharField):
    """A CharField writing ``model.name``: its ``max_length`` by default; a TextField
    (no length) needs an explicit ``max_length``."""

    def __init__(self, model, name, **kwargs):
        self.model_field = model_field(model, name)
        kwargs.setdefault("max_length", self.model_field.max_length)
        if kwargs["max_length"] is None:
            raise TypeError(f"{model.__name__}.{name} has no length: give max_length")
        super().__init__(**kwargs)


class ModelIntegerField(serializers.IntegerField):
    """An IntegerField writing ``model.name``: the column's range unless narrowed."""

    def __init__(self, model, name, **kwargs):
        self.model_field = model_field(model, name)
        low, high = integer_range(self.model_field)
        kwargs.setdefault("min_value", low)
        kwargs.setdefault("max_value", high)
        super().__init__(**kwargs)


def id_field(**kwargs) -> serializers.IntegerField:
    """An object id given as input (looked up, not written)."""
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class EventTimeField(serializers.DateTimeField):
    """A time of an event's settings: from 2000 to 8999 (UTC), the range the events service
    accepts (checked here too so that the API names the field before any lookup)."""

    default_error_messages = {
        "out_of_range": "give a time from 2000 to 8999",
    }

    def to_internal_value(self, value):
        value = super().to_internal_value(value)
        if not EARLIEST_TIME <= value < LATEST_TIME:
            self.fail("out_of_range")
        return value
