"""Claiming a placeholder account: the inactive account with no usable password that an
event-file import makes for a name in the file (``tournaments.event_file.identities``).
A placeholder belongs to the event whose import made it (a ``FileIdentity`` row): only
that event's owner can hand it out, so another import naming the same person cannot.

The event's organizer (or a site administrator) makes a one-time link for a registration
whose player is such a placeholder and hands it to the player; the player opens it, sets
a password (the site's password validators) and optionally an e-mail, and the account
becomes theirs: active, signed in, the link spent. Or, signed in to an account of their
own, they accept the link (:func:`accept_claim`): the event's records of the placeholder
move to their account, which is how an existing account joins an imported event: only
by its owner's choice.

The link's token (256 random bits) is never stored: the row keeps its SHA-256, like API
tokens (``tournaments.tokens``). Making a new link for an account ends the earlier unused
ones, so only the newest link handed out works.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from .. import policy
from ..models import ClaimLink, EventStaff, FileIdentity, Registration
from . import audit
from ._common import Actor
from .errors import Conflict, InvalidInput, InvalidState, NotAllowed

CLAIM_LINK_LIFETIME = dt.timedelta(days=14)


@dataclass(frozen=True, slots=True)
class NewClaimLink:
    """A link just made: ``token`` goes in the URL and is shown once."""

    link: ClaimLink
    token: str


def hash_claim_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_placeholder(user) -> bool:
    """An account nobody has used yet: inactive, never signed in, no usable password.
    A real account an administrator deactivated keeps its password and last sign-in,
    so it never qualifies (a claim link would hand it to someone else)."""
    return not user.is_active and user.last_login is None and not user.has_usable_password()


def belongs_to(user, event) -> bool:
    """``user`` is a placeholder that ``event``'s import made (not another event's)."""
    return is_placeholder(user) and FileIdentity.objects.filter(event=event, user=user).exists()


def can_make_claim_link(access: policy.EventAccess) -> bool:
    """Handing an account to a person is the event owner's call: its organizer or a site
    administrator, not the co-organizers or judges."""
    return access.is_owner


def make_claim_link(
    registration: Registration, *, actor: Actor, access: policy.EventAccess, now=None
) -> NewClaimLink:
    """A one-time link for the placeholder account of ``registration``'s player.

    Side effects: one ``ClaimLink`` row; the account's earlier unused links end now; one
    audit entry (``registration.claim_link_made``). Raises ``NotAllowed``
    (``not_event_owner``) or ``InvalidState`` (``not_a_placeholder``: the account is in
    use, or it is not a name this event's import made)."""
    policy.require(can_make_claim_link(access), "not_event_owner", "the event's organizer only")
    player = registration.player
    if not belongs_to(player, registration.event):
        raise InvalidState(
            "not_a_placeholder",
            f"the account {player.get_username()!r} is in use or belongs to another event: "
            "it cannot be claimed here",
        )
    now = now or timezone.now()
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        ClaimLink.objects.filter(user=player, used_at__isnull=True, expires_at__gt=now).update(
            expires_at=now
        )
        link = ClaimLink.objects.create(
            user=player,
            event=registration.event,
            created_by=actor,
            token_hash=hash_claim_token(token),
            expires_at=now + CLAIM_LINK_LIFETIME,
        )
        audit.record(
            registration.event,
            actor=actor,
            action="registration.claim_link_made",
            obj=registration,
        )
    return NewClaimLink(link=link, token=token)


class ClaimRefused(Exception):
    """The link does not work: ``code`` is ``unknown_link``, ``link_expired``,
    ``link_used`` or ``account_active``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def find_claim_link(token: str, *, now=None, lock: bool = False) -> ClaimLink:
    """The live link ``token`` names, with its account (raises :class:`ClaimRefused`)."""
    now = now or timezone.now()
    # One query: whether the account is still this event's own placeholder comes along.
    owned = FileIdentity.objects.filter(event=OuterRef("event"), user=OuterRef("user"))
    links = ClaimLink.objects.select_related("user", "event").annotate(owned=Exists(owned))
    if lock:
        links = links.select_for_update(of=("self",))
    link = links.filter(token_hash=hash_claim_token(token)).first()
    if link is None:
        raise ClaimRefused("unknown_link", "no claim link has this address")
    if link.used_at is not None:
        raise ClaimRefused("link_used", "the link has been used already")
    if link.expires_at <= now:
        raise ClaimRefused("link_expired", "the link has expired")
    if not (link.owned and is_placeholder(link.user)):
        raise ClaimRefused("account_active", "the account is already in use")
    return link


def claim_account(token: str, *, password: str, email: str = "", now=None):
    """The player takes over the account: password set (after the site's validators),
    e-mail set when given, account active, link spent. Returns the user.

    Side effects: the user row, the link's ``used_at``, one audit entry
    (``registration.account_claimed``) on the link's event. Raises :class:`ClaimRefused`,
    ``InvalidInput`` (``password_invalid``, ``email_invalid``) or ``Conflict``
    (``link_used`` when a concurrent claim won).

    The e-mail is the claimant's word only: an address the imported file gave the
    placeholder is dropped (the file cannot give someone else's address an account)."""
    now = now or timezone.now()
    email = (email or "").strip()
    with transaction.atomic():
        link = find_claim_link(token, now=now, lock=True)
        user = link.user
        try:
            password_validation.validate_password(password, user)
        except ValidationError as error:
            raise InvalidInput(
                "password_invalid", " ".join(error.messages), field="password"
            ) from None
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise InvalidInput(
                    "email_invalid", f"{email!r} is not an e-mail address", field="email"
                ) from None
        # Conditional: exactly one claim spends the link, whatever runs at the same time.
        if not ClaimLink.objects.filter(pk=link.pk, used_at__isnull=True).update(used_at=now):
            raise Conflict("link_used", "the link has been used already")
        user.set_password(password)
        user.is_active = True
        user.email = email
        user.save(update_fields=["password", "is_active", "email"])
        FileIdentity.objects.filter(event=link.event, user=user).update(accepted_at=now)
        registration = Registration.objects.filter(event=link.event, player=user).first()
        audit.record(
            link.event,
            actor=user,
            action="registration.account_claimed",
            obj=registration,
        )
    return user


def accept_claim(token: str, *, user, now=None) -> Registration | None:
    """``user``, signed in, accepts the link: the placeholder's records (its registration,
    staff role, and the acts the file gave it) become ``user``'s, the placeholder account
    is deleted, and the event's name for it now means ``user`` (a re-import keeps it).
    Returns the registration now ``user``'s, if any.

    Side effects: every row that named the placeholder names ``user``; the link's
    ``used_at``; one audit entry (``registration.account_accepted``) by ``user``. Raises
    :class:`ClaimRefused`, ``InvalidState`` (``already_in_event``: ``user`` has a
    registration or a role in the event already) or ``Conflict`` (``link_used``)."""
    now = now or timezone.now()
    with transaction.atomic():
        link = find_claim_link(token, now=now, lock=True)
        placeholder, event = link.user, link.event
        if user.pk == placeholder.pk:
            raise InvalidState("already_in_event", "this is the placeholder itself")
        if (
            event.organizer_id == user.pk
            or Registration.objects.filter(event=event, player=user).exists()
            or EventStaff.objects.filter(event=event, user=user).exists()
            or FileIdentity.objects.filter(event=event, user=user).exists()
        ):
            raise InvalidState(
                "already_in_event",
                f"{user.get_username()!r} already takes part in this event: "
                "ask its organizer to merge the two by hand",
            )
        if not ClaimLink.objects.filter(pk=link.pk, used_at__isnull=True).update(used_at=now):
            raise Conflict("link_used", "the link has been used already")
        _move_rows(placeholder, user)
        FileIdentity.objects.filter(event=event, user=user).update(accepted_at=now)
        placeholder.delete()
        registration = Registration.objects.filter(event=event, player=user).first()
        audit.record(
            event,
            actor=user,
            action="registration.account_accepted",
            obj=registration,
            after={"placeholder": placeholder.get_username()},
        )
    return registration


def _move_rows(placeholder, user) -> None:
    """Point every foreign key that names ``placeholder`` at ``user`` (a placeholder
    belongs to one event, so all its rows are that event's). One-to-one rows (indexes of
    the account itself) go with the placeholder."""
    for relation in type(placeholder)._meta.get_fields(include_hidden=True):
        if not (relation.auto_created and not relation.concrete):
            continue  # not a relation from another model ("+" ones are hidden)
        if relation.one_to_one or relation.many_to_many or not relation.field.concrete:
            continue
        relation.related_model._base_manager.filter(**{relation.field.name: placeholder}).update(
            **{relation.field.name: user}
        )


__all__ = [
    "CLAIM_LINK_LIFETIME",
    "ClaimRefused",
    "NewClaimLink",
    "NotAllowed",
    "accept_claim",
    "belongs_to",
    "can_make_claim_link",
    "claim_account",
    "find_claim_link",
    "is_placeholder",
    "make_claim_link",
]
