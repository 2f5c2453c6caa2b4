"""The audit log: one entry per successful change, in the change's own transaction."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models

from ..models import AuditEntry, Event
from ._common import Actor


def snapshot(obj: models.Model, fields: Iterable[str]) -> dict:
    """The named fields of ``obj`` as plain data (foreign keys as ids)."""
    data = {}
    for name in fields:
        field = obj._meta.get_field(name)
        data[name] = getattr(obj, field.attname)
    return data


def record(
    event: Event,
    *,
    actor: Actor,
    action: str,
    obj: models.Model | None = None,
    reason: str = "",
    before: dict | None = None,
    after: dict | None = None,
    version: int | None = None,
) -> AuditEntry:
    """Write the audit entry of one change. Call it inside the change's transaction, after
    the change itself, so that a rolled-back change leaves no entry."""
    target = obj if obj is not None else event
    return AuditEntry.objects.create(
        event=event,
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        object_type=target._meta.model_name,
        object_id=target.pk,
        object_version=version,
        reason=reason,
        before=before,
        after=after,
    )
