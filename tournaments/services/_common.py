"""Helpers shared by the service modules: locking, state checks, reasons."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import models
from django.db.models import Max

from ..models import MatchParticipant, Registration
from .errors import InvalidInput, InvalidState

# A user of settings.AUTH_USER_MODEL; the actor of a change may also be anonymous (the
# policy then refuses it).
User = AbstractBaseUser
Actor = AbstractBaseUser | AnonymousUser


def lock(model: type[models.Model], pk: int):
    """Re-read one row and lock it until the transaction ends.

    On PostgreSQL this is ``SELECT … FOR NO KEY UPDATE``: it excludes every other locker
    of the row, but not the ``FOR KEY SHARE`` lock that inserting a row which refers to it
    takes (an audit entry refers to the event). Plain ``FOR UPDATE`` deadlocks there:
    closing a round holds the event and waits for a match that a confirmation holds
    while it waits to insert its audit entry (test_concurrency shows it). SQLite has no
    row locks (``select_for_update`` is a no-op there), but every transaction starts with
    ``BEGIN IMMEDIATE`` (config/env.py), which already serialises writers.

    Lock order everywhere: event, registration, round, match.
    """
    return model.objects.select_for_update(no_key=True).get(pk=pk)


def save(obj: models.Model, *fields: str) -> None:
    """Save only ``fields`` (plus ``updated_at`` where the model has it): a wide save
    would overwrite what a concurrent writer changed in the other columns."""
    names = list(fields)
    if any(f.name == "updated_at" for f in obj._meta.concrete_fields):
        names.append("updated_at")
    obj.save(update_fields=names)


def require_state(current: str, allowed: Iterable[str], code: str, what: str) -> None:
    allowed = tuple(allowed)
    if current not in allowed:
        raise InvalidState(
            code,
            f"{what} is {current!r}; this needs {' or '.join(repr(a) for a in allowed)}",
            current=current,
            allowed=list(allowed),
        )


def require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput("reason_required", "give a reason for this change")
    return reason


def last_round_played(registration: Registration) -> int:
    """The highest round number in which the registration is paired (0 if none)."""
    found = MatchParticipant.objects.filter(registration=registration).aggregate(
        last=Max("round__number")
    )["last"]
    return found or 0
