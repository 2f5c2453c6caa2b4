"""A webhook's signing secret: rotating it (``tournaments.views_webhooks``).

The secret is shown to a manager once, right after the webhook is made or its secret is
rotated; the pages show it masked otherwise (:func:`masked`). Rotating is audited
(``webhook.secret_rotated``), with no secret in the entry: the audit log is read by every
staff member, and only managers may know the secret."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import policy
from ..models import Webhook
from ..webhooks import new_secret
from . import audit
from ._common import Actor

# Characters of the secret the pages show at its end, so a manager can tell which secret
# a receiver holds without the page holding it.
VISIBLE_END = 4
MASK = "•" * 8


def masked(secret: str) -> str:
    """The secret as the pages show it after the first time: ``••••••••Zx4Q``."""
    return MASK + secret[-VISIBLE_END:] if len(secret) > 4 * VISIBLE_END else MASK


def rotate_secret(hook: Webhook, *, actor: Actor, access: policy.EventAccess) -> str:
    """Give ``hook`` a new random secret and return it (for the page to show once).
    ``access`` is the actor's access to the webhook's event: its managers only.

    Side effects: the webhook's ``secret`` and ``updated_at``; audit entry
    ``webhook.secret_rotated`` (no secret in it). Deliveries already queued are signed
    with the new secret when they are sent. Raises NotAllowed (``not_manager``)."""
    policy.require(policy.can_edit_event(access), "not_manager", "event managers only")
    secret = new_secret()
    with transaction.atomic():
        Webhook.objects.filter(pk=hook.pk).update(secret=secret, updated_at=timezone.now())
        audit.record(hook.event, actor=actor, action="webhook.secret_rotated", obj=hook)
    hook.secret = secret
    return secret
