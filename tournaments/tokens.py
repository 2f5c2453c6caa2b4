"""API tokens: making, checking and revoking them (the API side is ``tournaments.api.tokens``).

A token reads ``cot_<prefix>_<secret>``: ``prefix`` (10 hex digits) is stored as it is
and finds the row; the 256-bit ``secret`` is never stored: the row keeps the SHA-256 of
the whole token, compared in constant time. A fast unsalted hash is enough for a random
secret of this length (nobody can guess it, so there is nothing to slow down); it is what
lets every API request check its token with one indexed query.

Two kinds:

* personal (``event`` None): the owner's own power in the API, as when signed in;
* event-scoped (``event`` set): made by one of the event's staff for a bot or a stream
  overlay; it acts as its maker only on that event's endpoints (elsewhere it reads only
  what an anonymous visitor may), and only while its maker is still on the event's
  staff.

Either is read-only (safe methods only) or read-write, and either may expire
(``expires_at``, chosen when it is made; an expired token is refused like a revoked one,
and stays listed until revoked). A token never makes tokens: the pages that do so need a
signed-in session (``tournaments.views_tokens``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from . import policy
from .models import ApiToken, Event, EventStaff, TokenScope
from .services.errors import InvalidInput, NotAllowed

TOKEN_PREFIX = "cot"
PREFIX_HEX_DIGITS = 10
# Tokens one user may hold unrevoked at once (all kinds): enough for any bot fleet, and a
# bound on what a runaway script can make.
MAX_ACTIVE_TOKENS = 50
NAME_MAX_LENGTH = ApiToken._meta.get_field("name").max_length
# ``last_used_at`` is written at most this often per token, not on every request.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)
# The longest lifetime a token may be given (a token that never expires is still allowed).
MAX_LIFETIME = dt.timedelta(days=366)


@dataclass(frozen=True, slots=True)
class NewToken:
    """A token just made: ``secret`` is the whole token, shown to its owner once."""

    token: ApiToken
    secret: str


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def visible_prefix(token: ApiToken) -> str:
    """How lists show a token: its start, enough to recognise it, never its secret."""
    return f"{TOKEN_PREFIX}_{token.prefix}…"


def split_token(raw: str) -> tuple[str, str] | None:
    """(prefix, raw) of a well-formed token, or None."""
    head, sep, rest = raw.partition("_")
    prefix, sep2, secret = rest.partition("_")
    if head != TOKEN_PREFIX or not sep or not sep2 or not secret:
        return None
    if len(prefix) != PREFIX_HEX_DIGITS or not all(c in "0123456789abcdef" for c in prefix):
        return None
    return prefix, raw


def _clean_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise InvalidInput("name_required", "give the token a name", field="name")
    if len(name) > NAME_MAX_LENGTH:
        raise InvalidInput(
            "name_too_long",
            f"the name has {len(name)} characters; at most {NAME_MAX_LENGTH}",
            field="name",
            max_length=NAME_MAX_LENGTH,
        )
    return name


def expiry_after(days: int | None, *, now: dt.datetime | None = None) -> dt.datetime | None:
    """When a token made now for ``days`` days expires (None: never)."""
    if days is None:
        return None
    return (now or timezone.now()) + dt.timedelta(days=days)


def create_token(
    user,
    *,
    name: str,
    scope: str,
    event: Event | None = None,
    access=None,
    expires_at: dt.datetime | None = None,
) -> NewToken:
    """Make a token for ``user`` (limited to ``event`` when given: ``access`` is the
    user's :class:`~tournaments.policy.EventAccess` there, who must be on its staff),
    working until ``expires_at`` when given (in the future, at most :data:`MAX_LIFETIME`
    away), else until revoked.

    Side effects: one ``ApiToken`` row. Raises ``InvalidInput`` (``name_required``,
    ``name_too_long``, ``invalid_scope``, ``invalid_expiry``, ``too_many_tokens``) or
    ``NotAllowed`` (``not_staff``)."""
    if user is None or not user.is_authenticated or not user.is_active:
        raise NotAllowed("not_authenticated", "sign in to make a token")
    if event is not None:
        access = access or policy.access_for(user, event)
        policy.require(can_manage_event_tokens(access), "not_staff", "staff only")
    name = _clean_name(name)
    if scope not in TokenScope.values:
        raise InvalidInput(
            "invalid_scope",
            f"scope {scope!r} is not one of {', '.join(TokenScope.values)}",
            field="scope",
        )
    now = timezone.now()
    if expires_at is not None and not now < expires_at <= now + MAX_LIFETIME:
        raise InvalidInput(
            "invalid_expiry",
            f"the expiry must be in the future and at most {MAX_LIFETIME.days} days away",
            field="expires",
            max_days=MAX_LIFETIME.days,
        )
    if live_tokens(user, now=now).count() >= MAX_ACTIVE_TOKENS:
        raise InvalidInput(
            "too_many_tokens",
            f"at most {MAX_ACTIVE_TOKENS} tokens at once; revoke one first",
            limit=MAX_ACTIVE_TOKENS,
        )
    # 40 bits of prefix: a clash is unlikely but possible, and then we draw again.
    for _attempt in range(5):
        prefix = secrets.token_hex(PREFIX_HEX_DIGITS // 2)
        secret = f"{TOKEN_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
        try:
            with transaction.atomic():
                token = ApiToken.objects.create(
                    user=user,
                    event=event,
                    name=name,
                    scope=scope,
                    prefix=prefix,
                    secret_hash=hash_token(secret),
                    expires_at=expires_at,
                )
        except IntegrityError:
            continue
        return NewToken(token=token, secret=secret)
    raise RuntimeError("could not draw an unused token prefix")


def revoke_token(token: ApiToken, *, actor, access=None) -> ApiToken:
    """Revoke ``token`` (harmless when it is already revoked). Its owner may; so may the
    managers of its event for an event-scoped token (``access``: the actor's access
    there). Side effects: ``revoked_at`` set with a conditional UPDATE."""
    if not can_revoke(actor, token, access):
        raise NotAllowed("not_token_owner", "only the token's owner can revoke it")
    now = timezone.now()
    if ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=now):
        token.revoked_at = now
    return token


# --- who may ---------------------------------------------------------------------------


def can_manage_event_tokens(access: policy.EventAccess) -> bool:
    """An event's staff make event-scoped tokens and see the event's tokens."""
    return access.is_staff


def can_revoke(actor, token: ApiToken, access: policy.EventAccess | None = None) -> bool:
    if actor is None or not actor.is_authenticated:
        return False
    if token.user_id == actor.pk:
        return True
    return token.event_id is not None and access is not None and access.is_manager


# --- reads -----------------------------------------------------------------------------


def active_tokens(user) -> QuerySet[ApiToken]:
    """The user's unrevoked tokens, expired ones included (listed until revoked)."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True)


def live_tokens(user, *, now: dt.datetime | None = None) -> QuerySet[ApiToken]:
    """The user's tokens that still work: unrevoked and unexpired (the quota counts
    these, so an expired token never stands in the way of a new one)."""
    now = now or timezone.now()
    return active_tokens(user).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def is_expired(token: ApiToken, *, now: dt.datetime | None = None) -> bool:
    return token.expires_at is not None and token.expires_at <= (now or timezone.now())


def personal_tokens(user) -> QuerySet[ApiToken]:
    """The user's unrevoked tokens, personal and event-scoped, newest first, with the
    event's name (one query)."""
    return (
        active_tokens(user)
        .select_related("event")
        .only(
            "name",
            "scope",
            "prefix",
            "created_at",
            "last_used_at",
            "revoked_at",
            "expires_at",
            "user_id",
            "event__id",
            "event__name",
        )
    )


def event_tokens(event: Event, access: policy.EventAccess) -> QuerySet[ApiToken]:
    """The event's unrevoked tokens with their makers, for its staff (none for others)."""
    tokens = ApiToken.objects.filter(event=event, revoked_at__isnull=True)
    if not can_manage_event_tokens(access):
        return tokens.none()
    return tokens.select_related("user").only(
        "name",
        "scope",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
        "expires_at",
        "event_id",
        "user__id",
        "user__username",
    )


# --- checking a presented token ---------------------------------------------------------


class TokenInvalid(Exception):
    """The presented token does not authenticate; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def authenticate(raw: str, *, now: dt.datetime | None = None) -> ApiToken:
    """The live token ``raw`` names, with its user loaded (one query; a second, an
    UPDATE, at most once a minute per token to record ``last_used_at``).

    Raises :class:`TokenInvalid`: ``invalid_token`` (malformed, unknown, wrong secret),
    ``token_revoked``, ``token_expired`` (its ``expires_at`` has passed), ``user_inactive``,
    ``not_event_staff`` (an event-scoped token whose maker left the event's staff)."""
    now = now or timezone.now()
    parts = split_token(raw)
    if parts is None:
        raise TokenInvalid("invalid_token", "the token is malformed")
    prefix, raw = parts
    on_staff = EventStaff.objects.filter(event_id=OuterRef("event_id"), user_id=OuterRef("user_id"))
    token = (
        ApiToken.objects.select_related("user")
        .annotate(event_organizer_id=F("event__organizer_id"), maker_on_staff=Exists(on_staff))
        .filter(prefix=prefix)
        .first()
    )
    # Compare against a hash even when no row matched, so both take the same time.
    stored = token.secret_hash if token is not None else hash_token("")
    if not hmac.compare_digest(stored, hash_token(raw)) or token is None:
        raise TokenInvalid("invalid_token", "unknown token")
    if token.revoked_at is not None:
        raise TokenInvalid("token_revoked", "the token has been revoked")
    if is_expired(token, now=now):
        expired = token.expires_at.astimezone(dt.UTC).isoformat(timespec="seconds")
        raise TokenInvalid(
            "token_expired",
            f"the token expired at {expired}; make a new one on the API tokens page",
        )
    if not token.user.is_active:
        raise TokenInvalid("user_inactive", "the token's user is inactive")
    if token.event_id is not None and not (
        token.user.is_superuser or token.event_organizer_id == token.user_id or token.maker_on_staff
    ):
        raise TokenInvalid("not_event_staff", "the token's user is no longer on the event's staff")
    touch(token, now=now)
    return token


def touch(token: ApiToken, *, now: dt.datetime | None = None) -> None:
    """Record the use, unless it was recorded less than a minute ago. The conditional
    UPDATE keeps concurrent requests from writing the row more than once a minute."""
    now = now or timezone.now()
    stale_before = now - LAST_USED_RESOLUTION
    if token.last_used_at is not None and token.last_used_at > stale_before:
        return
    ApiToken.objects.filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lte=stale_before), pk=token.pk
    ).update(last_used_at=now)
    token.last_used_at = now
