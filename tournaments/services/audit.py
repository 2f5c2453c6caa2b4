"""The audit log: one entry per successful change, in the change's own transaction.

Writing the entry also bumps the event's revision (:class:`~tournaments.models.EventRevision`),
which the cached pages are keyed by: a change that is audited is a change the pages see,
with no list of "invalidating" services to keep up to date.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models
from django.db.models import F

from ..models import AuditEntry, Event, EventRevision
from ._common import Actor


def snapshot(obj: models.Model, fields: Iterable[str]) -> dict:
    """The named fields of ``obj`` as plain data (foreign keys as ids)."""
    data = {}
    for name in fields:
        field = obj._meta.get_field(name)
        data[name] = getattr(obj, field.attname)
    return data


# Changes that cannot alter the Swiss standings (results in open rounds, draft and
# published rounds before they close, the staff list, decklists, the top cut, a deck check
# (its penalty is a ``penalty.issued``, which may cost a game)): they bump the event's
# revision but not its standings revision, so the standings stay cached through the
# end-of-round burst of reports. Any other action bumps both.
NOT_STANDINGS_ACTIONS = frozenset(
    {
        "match.reported",
        "match.confirmed",
        "match.disputed",
        "round.generated",
        "round.published",
        "round.clock_started",
        "match.time_extended",
        "round.pairing_edited",
        "round.repaired",
        "staff.added",
        "staff.removed",
        "registration.decklist_submitted",
        "event.top_cut_generated",
        "round.bracket_advanced",
        "deck_check.recorded",
        "registration.claim_link_made",
        "registration.account_claimed",
        "webhook.secret_rotated",
        "registration.account_accepted",
    }
)


def bump_revision(event_id: int, *, standings: bool) -> None:
    """Count one change of the event (and of its standings). Inside the change's
    transaction, as its last write: readers see the new revision exactly when they can
    see the change."""
    counters = {"number": F("number") + 1}
    if standings:
        counters["standings"] = F("standings") + 1
    if not EventRevision.objects.filter(event_id=event_id).update(**counters):
        # Rows are made with the event; this only covers one made without signals.
        EventRevision.objects.create(event_id=event_id, number=1, standings=int(standings))


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
    entry = AuditEntry.objects.create(
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
    bump_revision(event.pk, standings=action not in NOT_STANDINGS_ACTIONS)
    # The webhooks' outbox rows, in the same transaction (no query for other actions).
    from .. import webhooks

    webhooks.on_audit(event, action=action, target=target)
    return entry
