"""Outgoing webhooks: which changes they report, the outbox, signing, sending and the
guard against requests to the site's own network (docs/webhooks.md).

* :func:`on_audit` is called by ``services.audit.record`` for every audited change, inside
  the change's transaction. For the actions that matter to a webhook (:data:`ACTION_KINDS`)
  it writes one :class:`~tournaments.models.WebhookDelivery` per active webhook of the
  event that wants that kind (:func:`enqueue_event_webhooks`), so a committed change always
  has its deliveries and a rolled-back one has none. After the commit each delivery goes to
  the ``tournaments.deliver_webhook`` task.
* :func:`deliver` claims a delivery (``sending``, with a lease), POSTs its body with the
  signature headers and records the outcome: delivered (2xx), retried later with backoff
  (network errors, 408, 429, 5xx) or failed (other answers, a refused target, too many
  attempts). Running it twice for one delivery sends once: the claim is a conditional
  UPDATE.
* :func:`sweep` sends the due retries and the deliveries whose worker died mid-send (still
  ``sending`` after the lease) to the workers again: Celery beat runs it every
  ``WEBHOOKS_SWEEP_SECONDS``; ``manage.py send_webhooks`` runs it without a broker. A
  receiver may therefore get one delivery twice (dedupe by ``X-Crossover-Delivery``),
  never zero times.
* :func:`check_target` refuses URLs that are not plain http(s), carry credentials, or whose
  host resolves to a loopback, private, link-local, multicast or reserved address, unless
  ``WEBHOOKS_ALLOW_PRIVATE_TARGETS``. It runs when a webhook is saved and again before each
  send, and the send connects to the very address that was checked (no second DNS lookup
  that could answer differently).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import ssl
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import (
    DeliveryStatus,
    Event,
    EventState,
    Match,
    PenaltyKind,
    Registration,
    Round,
    RoundStatus,
    Webhook,
    WebhookDelivery,
    WebhookKind,
)

logger = logging.getLogger(__name__)

USER_AGENT = "CrossOver-Webhooks/1"
# How much of a receiver's answer is read (and kept in the log) at most.
MAX_ANSWER_BYTES = 1024
# Deliveries one sweep hands to the workers at most (the next sweep takes the rest).
SWEEP_BATCH = 500
# Attempts kept in a delivery's log.
MAX_LOGGED_ATTEMPTS = 20

# The audited actions a webhook hears about, and as what. Whether a change of standings
# really happened depends on the object (see :func:`kinds_for`).
ACTION_KINDS = {
    "round.published": (WebhookKind.ROUND_PUBLISHED,),
    "match.confirmed": (WebhookKind.RESULT_CONFIRMED,),
    "match.overridden": (WebhookKind.RESULT_CONFIRMED, WebhookKind.STANDINGS_CHANGED),
    "round.closed": (WebhookKind.STANDINGS_CHANGED,),
    "penalty.issued": (WebhookKind.STANDINGS_CHANGED,),
    "registration.dropped": (WebhookKind.STANDINGS_CHANGED,),
    "registration.late_entry": (WebhookKind.STANDINGS_CHANGED,),
    "registration.reentered": (WebhookKind.STANDINGS_CHANGED,),
    "event.finished": (WebhookKind.EVENT_FINISHED,),
}
PLAYING_STATES = (EventState.RUNNING, EventState.TOP_CUT)


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def sign(secret: str, body: bytes) -> str:
    """The ``X-Crossover-Signature`` value: ``sha256=`` and the hex HMAC-SHA256 of the raw
    body with the webhook's secret."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


# --- the target guard -------------------------------------------------------------------


class TargetRefused(ValidationError):
    """A webhook URL the site will not post to; ``code`` says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...] = ()


def _refuse(code: str, message, **params) -> TargetRefused:
    return TargetRefused(message, code=code, params=params or None)


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: a packet to such an
# address reaches that IPv4 host (through the dual stack, a translator or a NAT64 gateway).
_IPV4_IN_LOW_BITS = (
    ipaddress.IPv6Network("::ffff:0:0/96"),  # IPv4-mapped (RFC 4291)
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible, deprecated (RFC 4291)
    ipaddress.IPv6Network("::ffff:0:0:0/96"),  # IPv4-translated (RFC 2765, SIIT)
    ipaddress.IPv6Network("64:ff9b::/96"),  # NAT64 well-known prefix (RFC 6052)
)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for: mapped, compatible, translated and
    NAT64 addresses end with one; a 6to4 address (2002::/16) holds its router's after
    the prefix; a Teredo address (2001::/32) its server's and its client's."""
    found = []
    # ``::`` and ``::1`` are the unspecified and loopback addresses, not IPv4-compatible.
    if int(ip) > 1 and any(ip in network for network in _IPV4_IN_LOW_BITS):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    return found


def _not_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def address_refused(address: str) -> bool:
    """Whether ``address`` is loopback, private, link-local, multicast, reserved or
    otherwise not a public Internet address. An IPv6 address that carries an IPv4
    address (:func:`embedded_ipv4`: mapped, compatible, NAT64, 6to4, Teredo) is refused
    when either is: ``2002:7f00:1::`` is 127.0.0.1 behind a 6to4 relay."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return _not_public(ip.ipv4_mapped)  # the very IPv4 address, written as IPv6
    if _not_public(ip):
        return True
    return ip.version == 6 and any(_not_public(inner) for inner in embedded_ipv4(ip))


def check_target(url: str, *, resolve: bool = True) -> Target:
    """The parsed ``url`` with the addresses its host resolves to, or TargetRefused.

    Refused: another scheme than http/https (``scheme``), a user name or password in the
    URL (``credentials``), no host or a bad port (``host``), a host that does not resolve
    (``unresolvable``) and, unless ``WEBHOOKS_ALLOW_PRIVATE_TARGETS``, a host with any
    address that is not public (``private_address``)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise _refuse("host", _("The URL's host or port cannot be read.")) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise _refuse("scheme", _("Only http:// and https:// URLs can receive webhooks."))
    if parts.username is not None or parts.password is not None:
        raise _refuse(
            "credentials",
            _("The URL must not contain a user name or password; use the secret instead."),
        )
    host = parts.hostname
    if not host:
        raise _refuse("host", _("The URL has no host."))
    port = port or (443 if scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    target = Target(scheme, host, port, path)
    allow_private = settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS
    if not resolve:
        return target
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise _refuse(
            "unresolvable", _("The host %(host)s cannot be found (DNS)."), host=host
        ) from None
    addresses = tuple(dict.fromkeys(info[4][0] for info in infos))
    if not allow_private:
        refused = [address for address in addresses if address_refused(address)]
        if refused:
            raise _refuse(
                "private_address",
                _(
                    "The host %(host)s is on a private, loopback or reserved address "
                    "(%(address)s); webhooks go to public addresses only."
                ),
                host=host,
                address=refused[0],
            )
    return Target(scheme, host, port, path, addresses)


# --- which changes become deliveries -------------------------------------------------------


def kinds_for(action: str, event: Event, target) -> list[str]:
    """The webhook kinds one audited change is, given the changed object."""
    kinds = list(ACTION_KINDS.get(action, ()))
    if WebhookKind.STANDINGS_CHANGED not in kinds:
        return kinds
    standings = True
    if action == "match.overridden":
        # A result entered in an open round reaches the standings when the round closes.
        round_status = Round.objects.filter(pk=target.round_id).values_list("status", flat=True)
        standings = round_status.first() == RoundStatus.CLOSED
    elif action == "penalty.issued":
        standings = getattr(target, "kind", None) != PenaltyKind.WARNING
    elif action.startswith("registration."):
        standings = event.state in PLAYING_STATES
    if not standings:
        kinds.remove(WebhookKind.STANDINGS_CHANGED)
    return kinds


def on_audit(event: Event, *, action: str, target) -> None:
    """Hook of ``services.audit.record``: write the deliveries of one audited change (no
    query for the actions no webhook hears about)."""
    if action not in ACTION_KINDS:
        return
    hooks = list(Webhook.objects.filter(event_id=event.pk, active=True))
    if not hooks:
        return
    for kind in kinds_for(action, event, target):
        wanted = [hook for hook in hooks if kind in hook.kinds]
        if wanted:
            payload = build_payload(event, kind, action=action, target=target)
            enqueue_event_webhooks(event, kind, payload, webhooks=wanted)


def site_url(path: str) -> str:
    return settings.WEBHOOKS_SITE_URL + path


def build_payload(event: Event, kind: str, *, action: str, target) -> dict:
    """The JSON document of one piece of news (docs/webhooks.md)."""
    payload = {
        "kind": kind,
        "action": action,
        "occurred_at": timezone.now().isoformat(),
        "event": {
            "id": event.pk,
            "uid": str(event.uid),
            "name": event.name,
            "state": event.state,
            "url": site_url(reverse("tournaments:event_detail", args=[event.pk])),
        },
        "round": None,
        "match": None,
        "standings_url": site_url(reverse("tournaments:standings", args=[event.pk])),
    }
    if isinstance(target, Round):
        payload["round"] = {"number": target.number, "stage": target.stage}
        if kind == WebhookKind.ROUND_PUBLISHED:
            payload["round"]["pairings_url"] = site_url(
                reverse("tournaments:pairings", args=[event.pk, target.number])
            )
    elif isinstance(target, Match):
        round_ = Round.objects.filter(pk=target.round_id).values("number", "stage").first()
        payload["round"] = round_
        names = dict(
            Registration.objects.filter(
                pk__in=[pk for pk in (target.player1_id, target.player2_id) if pk]
            ).values_list("pk", "player__username")
        )
        payload["match"] = {
            "id": target.pk,
            "table": target.table,
            "player1": names.get(target.player1_id),
            "player2": names.get(target.player2_id),
            "wins": target.wins,
            "losses": target.losses,
            "draws": target.draws,
            "outcome": target.outcome or None,
            "status": target.status,
        }
    return payload


def encode(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def enqueue_event_webhooks(
    event: Event, kind: str, payload: dict, *, webhooks: list[Webhook] | None = None
) -> list[int]:
    """Write one delivery of ``payload`` per active webhook of ``event`` that wants
    ``kind`` (``webhooks``: those, already loaded) and hand them to the workers once the
    surrounding transaction commits. Call it inside the change's transaction: the rows
    are the outbox, written or rolled back with the change. Returns the delivery ids."""
    if webhooks is None:
        webhooks = [
            hook
            for hook in Webhook.objects.filter(event_id=event.pk, active=True)
            if kind in hook.kinds
        ]
    if not webhooks:
        return []
    body = encode(payload)
    now = timezone.now()
    rows = [
        WebhookDelivery(
            webhook=hook,
            event_id=event.pk,
            kind=kind,
            body=body,
            next_attempt_at=now,
            queued_at=now,
        )
        for hook in webhooks
    ]
    created = WebhookDelivery.objects.bulk_create(rows)
    ids = [row.pk for row in created]
    if None in ids:  # a backend that does not return the new ids
        uids = [row.uid for row in rows]
        ids = list(WebhookDelivery.objects.filter(uid__in=uids).values_list("pk", flat=True))
    transaction.on_commit(lambda: queue(ids))
    return ids


def queue(delivery_ids) -> None:
    """Hand deliveries to the workers (or, without a broker, send them now). A broker that
    cannot be reached loses nothing: the rows stay due and the next sweep queues them."""
    from .tasks import deliver_webhook

    for delivery_id in delivery_ids:
        try:
            deliver_webhook.delay(delivery_id=delivery_id)
        except Exception:
            logger.exception("webhook delivery %s could not be queued", delivery_id)


# --- sending ----------------------------------------------------------------------------


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to the address that was checked, with the URL's host in the Host header."""

    def __init__(self, host, port, *, address, timeout):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to the address that was checked; the certificate is verified for the host."""

    def __init__(self, host, port, *, address, timeout):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


@dataclass
class Outcome:
    status_code: int | None = None
    error: str = ""
    retry: bool = False
    delivered: bool = False
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def post(url: str, body: bytes, headers: dict[str, str]) -> Outcome:
    """POST ``body`` to ``url`` once, after checking the target again."""
    started = time.monotonic()
    try:
        target = check_target(url)
    except TargetRefused as exc:
        message = " ".join(exc.messages)
        # DNS may come back; a private address will not become public.
        return Outcome(error=message, retry=exc.code == "unresolvable")
    connection_class = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    errors = []
    for address in target.addresses:
        connection = connection_class(
            target.host, target.port, address=address, timeout=settings.WEBHOOKS_TIMEOUT
        )
        try:
            connection.request("POST", target.path, body=body, headers=headers)
            answer = connection.getresponse()
            answer.read(MAX_ANSWER_BYTES)
            status = answer.status
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"{address}: {exc.__class__.__name__}: {exc}".strip())
            if _connected(connection):
                break  # the request may have arrived: do not send it to another address
            continue
        finally:
            connection.close()
        seconds = round(time.monotonic() - started, 3)
        if 200 <= status < 300:
            return Outcome(status_code=status, delivered=True, seconds=seconds)
        retry = status in (408, 429) or status >= 500
        return Outcome(status_code=status, error=f"HTTP {status}", retry=retry, seconds=seconds)
    return Outcome(
        error="; ".join(errors)[:500] or "no address",
        retry=True,
        seconds=round(time.monotonic() - started, 3),
    )


def _connected(connection) -> bool:
    return connection.sock is not None


def headers_for(delivery: WebhookDelivery, body: bytes, attempt: int) -> dict[str, str]:
    return {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": USER_AGENT,
        "X-Crossover-Event": delivery.kind,
        "X-Crossover-Delivery": str(delivery.uid),
        "X-Crossover-Timestamp": str(int(time.time())),
        "X-Crossover-Attempt": str(attempt),
        "X-Crossover-Signature": sign(delivery.webhook.secret, body),
    }


def retry_delay(attempts: int) -> int:
    """Seconds to wait after the ``attempts``-th failed attempt (30 s, 2 min, 10 min, 1 h,
    then 1 h again)."""
    delays = settings.WEBHOOKS_RETRY_DELAYS
    return delays[min(attempts, len(delays)) - 1]


def _claimable(now: dt.datetime) -> Q:
    return Q(status=DeliveryStatus.PENDING, next_attempt_at__lte=now) | Q(
        status=DeliveryStatus.SENDING, lease_until__lt=now
    )


def deliver(delivery_id: int) -> str | None:
    """Send one delivery if it is due (or its previous worker's lease ran out) and record
    the outcome. Returns the new status, or None when there was nothing to do (already
    delivered, failed, not due, or being sent by another worker)."""
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(_claimable(now), pk=delivery_id).update(
        status=DeliveryStatus.SENDING,
        attempts=F("attempts") + 1,
        lease_until=now + dt.timedelta(seconds=settings.WEBHOOKS_LEASE_SECONDS),
        queued_at=None,
    )
    if not claimed:
        return None
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None:  # its webhook was deleted meanwhile
        return None
    attempt = delivery.attempts
    log = list(delivery.attempt_log)
    # Attempts claimed before whose worker never reported back (it died mid-send).
    for lost in range(len(log) + 1, attempt):
        log.append({"attempt": lost, "at": None, "status_code": None, "error": "worker lost"})
    if not delivery.webhook.active:
        outcome = Outcome(error="webhook turned off")
    else:
        body = delivery.body.encode("utf-8")
        outcome = post(delivery.webhook.url, body, headers_for(delivery, body, attempt))
    finished = timezone.now()
    log.append(
        {
            "attempt": attempt,
            "at": finished.isoformat(),
            "status_code": outcome.status_code,
            "error": outcome.error,
            "seconds": outcome.seconds,
        }
    )
    changes = {
        "last_status_code": outcome.status_code,
        "last_error": outcome.error,
        "attempt_log": log[-MAX_LOGGED_ATTEMPTS:],
        "lease_until": None,
    }
    if outcome.delivered:
        changes.update(status=DeliveryStatus.DELIVERED, delivered_at=finished, next_attempt_at=None)
    elif outcome.retry and attempt < settings.WEBHOOKS_MAX_ATTEMPTS:
        changes.update(
            status=DeliveryStatus.PENDING,
            next_attempt_at=finished + dt.timedelta(seconds=retry_delay(attempt)),
        )
    else:
        changes.update(status=DeliveryStatus.FAILED, next_attempt_at=None)
    # Only the worker holding this attempt's claim writes its outcome.
    WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.SENDING, attempts=attempt
    ).update(**changes)
    logger.info(
        "webhook delivery %s (%s) attempt %s to %s: %s %s",
        delivery.uid,
        delivery.kind,
        attempt,
        delivery.webhook.url,
        outcome.status_code or "-",
        outcome.error or "ok",
    )
    return changes["status"]


def sweep() -> list[int]:
    """Queue the deliveries that are due (a retry whose time came, one whose queueing was
    lost) or stuck (``sending`` past its lease: the worker died). A delivery queued by an
    earlier sweep is not queued again within a lease. Returns the ids queued."""
    now = timezone.now()
    lease = dt.timedelta(seconds=settings.WEBHOOKS_LEASE_SECONDS)
    not_queued = Q(queued_at__isnull=True) | Q(queued_at__lt=now - lease)
    ids = list(
        WebhookDelivery.objects.filter(_claimable(now) & not_queued)
        .order_by("next_attempt_at", "id")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    if not ids:
        return []
    WebhookDelivery.objects.filter(pk__in=ids).update(queued_at=now)
    queue(ids)
    return ids


# --- managing webhooks ---------------------------------------------------------------------


def webhooks_of(event: Event):
    return Webhook.objects.filter(event=event).order_by("created_at", "id")


def deliveries_of(event: Event):
    """The event's delivery log, newest first, with each delivery's webhook."""
    return (
        WebhookDelivery.objects.filter(event=event)
        .select_related("webhook")
        .defer("body")
        .order_by("-created_at", "-id")
    )
