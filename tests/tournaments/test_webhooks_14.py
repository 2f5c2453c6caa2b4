"""Outgoing webhooks (issue 14): the outbox rows written with the change, the signature a
real HTTP receiver on 127.0.0.1 checks, retries with backoff (a 500 is retried, a 404 is
not), the guard against private targets, who may manage an event's webhooks and the
delivery log's queries."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tournaments import services, webhooks
from tournaments.models import (
    DeliveryStatus,
    Match,
    Webhook,
    WebhookDelivery,
    WebhookKind,
)

from .factories import UserFactory, open_event, register_all

pytestmark = pytest.mark.django_db

SECRET = "a-test-secret-of-some-length"


class Receiver:
    """An HTTP server on 127.0.0.1 in a thread: answers each POST with the next status of
    ``statuses`` (the last one repeats) and keeps every request it got."""

    def __init__(self, statuses=(200,)):
        self.statuses = list(statuses)
        self.requests: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append({"headers": dict(self.headers), "body": body})
                status = receiver.statuses[min(len(receiver.requests), len(receiver.statuses)) - 1]
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook?source=test"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    servers = []

    def start(*statuses):
        server = Receiver(statuses or (200,))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = True


@pytest.fixture
def running(organizer, crossover, make_players):
    """A running event of four players, round 1 generated (not published)."""
    event = open_event(organizer, crossover)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    return event, round_


def add_hook(event, url, kinds=(WebhookKind.ROUND_PUBLISHED,), active=True) -> Webhook:
    return Webhook.objects.create(
        event=event, url=url, secret=SECRET, kinds=list(kinds), active=active
    )


def expected_signature(body: bytes) -> str:
    return "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()


# --- the outbox ---------------------------------------------------------------------------


def test_publishing_a_round_writes_one_delivery_per_subscribed_webhook(running, organizer):
    event, round_ = running
    wanted = [
        add_hook(event, "https://one.example.org/"),
        add_hook(event, "https://two.example.org/", kinds=WebhookKind.values),
    ]
    add_hook(event, "https://off.example.org/", active=False)
    add_hook(event, "https://finish.example.org/", kinds=[WebhookKind.EVENT_FINISHED])

    services.publish_round(round_, actor=organizer)  # on_commit not run: nothing is sent

    deliveries = WebhookDelivery.objects.order_by("webhook_id")
    assert [(d.webhook_id, d.kind, d.status, d.attempts) for d in deliveries] == [
        (hook.pk, "round.published", "pending", 0) for hook in wanted
    ]
    payload = json.loads(deliveries[0].body)
    assert payload["kind"] == "round.published"
    assert payload["event"]["id"] == event.pk
    assert payload["event"]["name"] == event.name
    assert payload["round"]["number"] == 1
    assert payload["round"]["pairings_url"] == f"/events/{event.pk}/rounds/1/pairings/"
    assert payload["standings_url"] == f"/events/{event.pk}/standings/"
    assert deliveries[0].body == deliveries[1].body


def test_a_refused_change_writes_no_delivery(running, organizer):
    """The deliveries are written in the change's transaction: no change, no delivery."""
    event, round_ = running
    add_hook(event, "https://one.example.org/")
    services.publish_round(round_, actor=organizer)
    with pytest.raises(services.errors.InvalidState):
        services.publish_round(round_, actor=organizer)  # already published
    assert WebhookDelivery.objects.count() == 1


def test_other_actions_write_no_delivery_and_cost_no_query(
    running, organizer, django_assert_num_queries
):
    event, round_ = running
    add_hook(event, "https://one.example.org/", kinds=WebhookKind.values)
    with django_assert_num_queries(0):
        webhooks.on_audit(event, action="round.generated", target=round_)
    assert not WebhookDelivery.objects.exists()


def test_results_standings_and_finish_are_sent_as_their_kinds(
    running, organizer, django_capture_on_commit_callbacks
):
    event, round_ = running
    add_hook(event, "https://all.example.org/", kinds=WebhookKind.values)
    services.publish_round(round_, actor=organizer)
    match = Match.objects.filter(round=round_, player2__isnull=False).order_by("table").first()
    services.report_result(match, actor=match.player1.player, record="2-1", expected_version=1)
    services.confirm_result(match, actor=match.player2.player, expected_version=2)
    confirmed = WebhookDelivery.objects.get(kind="result.confirmed")
    payload = json.loads(confirmed.body)
    assert payload["match"]["table"] == match.table
    assert payload["match"]["player1"] == match.player1.player.username
    assert (payload["match"]["wins"], payload["match"]["losses"]) == (2, 1)
    assert payload["round"]["number"] == 1
    assert list(WebhookDelivery.objects.values_list("kind", flat=True).order_by("id")) == [
        "round.published",
        "result.confirmed",
    ]


# --- sending ------------------------------------------------------------------------------


def test_receiver_checks_the_signature(
    running, organizer, receiver, allow_private, django_capture_on_commit_callbacks
):
    event, round_ = running
    server = receiver(200)
    hook = add_hook(event, server.url)

    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)

    delivery = WebhookDelivery.objects.get()
    assert len(server.requests) == 1
    request = server.requests[0]
    headers = request["headers"]
    assert request["body"] == delivery.body.encode()
    assert headers["X-Crossover-Signature"] == expected_signature(request["body"])
    assert hmac.compare_digest(
        headers["X-Crossover-Signature"].removeprefix("sha256="),
        hmac.new(hook.secret.encode(), request["body"], hashlib.sha256).hexdigest(),
    )
    assert headers["X-Crossover-Delivery"] == str(delivery.uid)
    assert headers["X-Crossover-Event"] == "round.published"
    assert abs(int(headers["X-Crossover-Timestamp"]) - timezone.now().timestamp()) < 60
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(request["body"])["round"]["number"] == 1
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        DeliveryStatus.DELIVERED,
        1,
        200,
    )
    assert delivery.delivered_at is not None
    assert [entry["status_code"] for entry in delivery.attempt_log] == [200]


def test_a_500_is_retried_with_backoff_then_delivered(
    running, organizer, receiver, allow_private, django_capture_on_commit_callbacks
):
    event, round_ = running
    server = receiver(500, 200)
    add_hook(event, server.url)

    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)

    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("pending", 1, 500)
    assert delivery.last_error == "HTTP 500"
    wait = (delivery.next_attempt_at - before).total_seconds()
    assert 30 <= wait < 40  # the first backoff step
    assert webhooks.sweep() == []  # not due yet: nothing is sent early
    assert len(server.requests) == 1

    # 30 s later the sweep (Celery beat, or manage.py send_webhooks) sends it again.
    WebhookDelivery.objects.update(next_attempt_at=timezone.now() - dt.timedelta(seconds=1))
    call_command("send_webhooks")

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("delivered", 2, 200)
    assert delivery.last_error == ""
    assert [entry["status_code"] for entry in delivery.attempt_log] == [500, 200]
    assert len(server.requests) == 2
    first, second = server.requests
    assert first["body"] == second["body"]
    assert first["headers"]["X-Crossover-Delivery"] == second["headers"]["X-Crossover-Delivery"]
    assert [r["headers"]["X-Crossover-Attempt"] for r in server.requests] == ["1", "2"]


def test_retry_delays_grow():
    assert [webhooks.retry_delay(n) for n in range(1, 7)] == [30, 120, 600, 3600, 3600, 3600]


def test_a_404_is_not_retried(
    running, organizer, receiver, allow_private, django_capture_on_commit_callbacks
):
    event, round_ = running
    server = receiver(404)
    add_hook(event, server.url)
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("failed", 1, 404)
    assert delivery.next_attempt_at is None
    assert webhooks.sweep() == []
    assert webhooks.deliver(delivery.pk) is None  # a failed delivery is left alone
    assert len(server.requests) == 1


def test_a_429_is_retried(
    running, organizer, receiver, allow_private, django_capture_on_commit_callbacks
):
    event, round_ = running
    server = receiver(429)
    add_hook(event, server.url)
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.last_status_code) == ("pending", 429)


def test_gives_up_after_the_last_attempt(
    running, organizer, receiver, allow_private, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOKS_MAX_ATTEMPTS = 2
    event, round_ = running
    server = receiver(503)
    add_hook(event, server.url)
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)
    WebhookDelivery.objects.update(next_attempt_at=timezone.now() - dt.timedelta(seconds=1))
    webhooks.sweep()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("failed", 2, 503)
    assert len(server.requests) == 2


def test_an_unreachable_receiver_is_retried(
    running, organizer, receiver, allow_private, django_capture_on_commit_callbacks
):
    event, round_ = running
    server = receiver(200)
    url = server.url
    server.close()  # nobody listens there any more: connection refused
    add_hook(event, url)
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("pending", 1, None)
    assert "ConnectionRefusedError" in delivery.last_error


def test_a_delivery_stuck_in_sending_is_sent_again_after_the_lease(
    running, organizer, receiver, allow_private, settings
):
    """The worker that claimed it died: within the lease nobody sends it again, after it
    the sweep does, and the log names the lost attempt."""
    event, round_ = running
    server = receiver(200)
    add_hook(event, server.url)
    services.publish_round(round_, actor=organizer)
    delivery = WebhookDelivery.objects.get()
    now = timezone.now()
    WebhookDelivery.objects.update(
        status="sending", attempts=1, lease_until=now + dt.timedelta(seconds=60), queued_at=None
    )
    assert webhooks.sweep() == []
    assert webhooks.deliver(delivery.pk) is None
    WebhookDelivery.objects.update(lease_until=now - dt.timedelta(seconds=1))
    assert webhooks.sweep() == [delivery.pk]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 2)
    assert [entry["error"] for entry in delivery.attempt_log] == ["worker lost", ""]
    assert len(server.requests) == 1


# --- the target guard ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://172.16.5.4/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/",
        "http://224.0.0.1/",
        "http://0.0.0.0/",
        "http://100.64.0.1/",
        "http://240.0.0.1/",
    ],
)
def test_private_targets_are_refused(url):
    with pytest.raises(webhooks.TargetRefused) as refused:
        webhooks.check_target(url)
    assert refused.value.code == "private_address"


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("ftp://example.org/", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://example.org/", "scheme"),
        ("https://user:pass@example.org/", "credentials"),
        ("https://user@example.org/", "credentials"),
        ("https:///path", "host"),
        ("https://example.org:99999/", "host"),
        ("https://no-such-host.invalid/", "unresolvable"),
    ],
)
def test_bad_urls_are_refused(url, code, allow_private):
    """Even with private targets allowed: only http(s), no credentials, a real host."""
    with pytest.raises(webhooks.TargetRefused) as refused:
        webhooks.check_target(url)
    assert refused.value.code == code


def test_public_address_is_accepted():
    target = webhooks.check_target("https://93.184.215.14:8443/in?x=1")
    assert (target.scheme, target.host, target.port, target.path) == (
        "https",
        "93.184.215.14",
        8443,
        "/in?x=1",
    )
    assert target.addresses == ("93.184.215.14",)


def test_private_targets_are_allowed_by_the_setting(allow_private):
    assert webhooks.check_target("http://127.0.0.1:9/").addresses == ("127.0.0.1",)


def test_private_target_is_refused_at_send_time(
    running, organizer, receiver, settings, django_capture_on_commit_callbacks
):
    """A webhook saved while the setting allowed it (or whose host now resolves to a
    private address) is refused when sent: nothing reaches the receiver, no retry."""
    event, round_ = running
    server = receiver(200)
    add_hook(event, server.url)
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, actor=organizer)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("failed", 1, None)
    assert "private" in delivery.last_error
    assert server.requests == []


def test_the_form_refuses_a_private_target(client, running, organizer):
    event, _round = running
    client.force_login(organizer)
    response = client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {"url": "http://192.168.1.20/hook", "secret": SECRET, "kinds": ["round.published"]},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["url"] == [
        "The host 192.168.1.20 is on a private, loopback or reserved address "
        "(192.168.1.20); webhooks go to public addresses only."
    ]
    assert not Webhook.objects.exists()


def test_the_form_accepts_a_private_target_when_allowed(client, running, organizer, allow_private):
    event, _round = running
    client.force_login(organizer)
    response = client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {
            "url": "http://192.168.1.20/hook",
            "secret": SECRET,
            "kinds": ["round.published", "event.finished"],
            "active": "on",
        },
    )
    assert response.status_code == 200  # the page that shows the secret once
    hook = Webhook.objects.get()
    assert (hook.event_id, hook.url, hook.kinds, hook.active, hook.created_by_id) == (
        event.pk,
        "http://192.168.1.20/hook",
        ["round.published", "event.finished"],
        True,
        organizer.pk,
    )


# --- the staff's pages ---------------------------------------------------------------------


def test_manager_creates_edits_and_deletes_a_webhook(client, running, organizer, allow_private):
    event, _round = running
    client.force_login(organizer)
    page = client.get(reverse("tournaments:webhook_new", args=[event.pk]))
    assert page.status_code == 200
    suggested = page.context["form"].initial["secret"]
    assert len(suggested) >= 40
    short = client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {"url": "http://127.0.0.1:9/a", "secret": "short", "kinds": ["round.published"]},
    )
    assert list(short.context["form"].errors) == ["secret"]  # a too short secret is refused
    assert not Webhook.objects.exists()
    client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {"url": "http://127.0.0.1:9/a", "secret": suggested, "kinds": ["round.published"]},
    )
    hook = Webhook.objects.get()
    assert (hook.secret, hook.active) == (suggested, False)
    listing = client.get(reverse("tournaments:webhook_list", args=[event.pk]))
    assert "http://127.0.0.1:9/a" in listing.content.decode()
    edit = client.post(
        reverse("tournaments:webhook_edit", args=[event.pk, hook.pk]),
        {"url": "http://127.0.0.1:9/b", "secret": suggested, "kinds": [], "active": "on"},
    )
    assert edit.context["form"].errors == {"kinds": ["Choose at least one kind of news."]}
    client.post(
        reverse("tournaments:webhook_edit", args=[event.pk, hook.pk]),
        {"url": "http://127.0.0.1:9/b", "secret": suggested, "kinds": ["event.finished"]},
    )
    hook.refresh_from_db()
    assert (hook.url, hook.kinds) == ("http://127.0.0.1:9/b", ["event.finished"])
    assert (
        client.get(reverse("tournaments:webhook_delete", args=[event.pk, hook.pk])).status_code
        == 200
    )
    response = client.post(reverse("tournaments:webhook_delete", args=[event.pk, hook.pk]))
    assert response.status_code == 302
    assert not Webhook.objects.exists()


def _urls(event, hook):
    return [
        ("get", reverse("tournaments:webhook_list", args=[event.pk])),
        ("get", reverse("tournaments:webhook_new", args=[event.pk])),
        ("post", reverse("tournaments:webhook_new", args=[event.pk])),
        ("get", reverse("tournaments:webhook_edit", args=[event.pk, hook.pk])),
        ("post", reverse("tournaments:webhook_edit", args=[event.pk, hook.pk])),
        ("get", reverse("tournaments:webhook_delete", args=[event.pk, hook.pk])),
        ("post", reverse("tournaments:webhook_delete", args=[event.pk, hook.pk])),
        ("get", reverse("tournaments:webhook_rotate_secret", args=[event.pk, hook.pk])),
        ("post", reverse("tournaments:webhook_rotate_secret", args=[event.pk, hook.pk])),
        ("get", reverse("tournaments:webhook_deliveries", args=[event.pk])),
    ]


@pytest.mark.parametrize("who", ["outsider", "player", "judge"])
def test_others_cannot_see_or_manage_the_webhooks(running, organizer, judge, outsider, who):
    event, _round = running
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    hook = add_hook(event, "https://one.example.org/")
    user = {"outsider": outsider, "judge": judge, "player": event.registrations.first().player}
    client = Client()
    client.force_login(user[who])
    data = {"url": "https://evil.example.org/", "secret": SECRET, "kinds": ["round.published"]}
    for method, url in _urls(event, hook):
        response = getattr(client, method)(url, data if method == "post" else None)
        assert response.status_code == 403, (method, url)
        assert b"one.example.org" not in response.content
    assert list(Webhook.objects.values_list("url", flat=True)) == ["https://one.example.org/"]


def test_anonymous_is_sent_to_log_in(running):
    event, _round = running
    hook = add_hook(event, "https://one.example.org/")
    for method, url in _urls(event, hook):
        response = getattr(Client(), method)(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_another_events_organizer_gets_404_for_this_events_webhook(running, crossover, organizer):
    event, _round = running
    hook = add_hook(event, "https://one.example.org/")
    other_organizer = UserFactory(username="other-organizer")
    other = open_event(other_organizer, crossover, name="Other Open")
    client = Client()
    client.force_login(other_organizer)
    for method in ("get", "post"):
        for name in ("tournaments:webhook_edit", "tournaments:webhook_delete"):
            response = getattr(client, method)(reverse(name, args=[other.pk, hook.pk]))
            assert response.status_code == 404
    response = client.get(
        reverse("tournaments:webhook_deliveries", args=[other.pk]), {"webhook": hook.pk}
    )
    assert response.status_code == 404
    assert Webhook.objects.filter(pk=hook.pk).exists()


def test_co_organizer_manages_webhooks(running, organizer, co_organizer):
    event, _round = running
    services.add_staff(event, actor=organizer, user=co_organizer, role="co_organizer")
    client = Client()
    client.force_login(co_organizer)
    assert client.get(reverse("tournaments:webhook_list", args=[event.pk])).status_code == 200


def _deliveries(event, hook, count):
    for n in range(count):
        WebhookDelivery.objects.create(
            webhook=hook,
            event=event,
            kind=WebhookKind.ROUND_PUBLISHED,
            body="{}",
            status=DeliveryStatus.PENDING if n % 2 else DeliveryStatus.DELIVERED,
            attempts=n + 1,
            last_status_code=500 if n % 2 else 200,
            last_error="HTTP 500" if n % 2 else "",
            next_attempt_at=timezone.now(),
            attempt_log=[{"attempt": 1, "at": "x", "status_code": 500, "error": "HTTP 500"}] * 2,
        )


@pytest.mark.parametrize("filtered", [False, True])
def test_delivery_log_query_count(running, organizer, filtered):
    event, _round = running
    hooks = [add_hook(event, "https://one.example.org/"), add_hook(event, "https://2.example.org/")]
    client = Client()
    client.force_login(organizer)
    url = reverse("tournaments:webhook_deliveries", args=[event.pk])
    query = {"webhook": hooks[0].pk} if filtered else {}
    counts = []
    for total in (1, 3):
        WebhookDelivery.objects.all().delete()
        _deliveries(event, hooks[0], total)
        _deliveries(event, hooks[1], total)
        client.get(url, query)  # warm the session
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, query)
        assert response.status_code == 200
        counts.append(len(queries))
        rows = response.content.decode().count('<td class="row-title">')
        assert rows == (total if filtered else 2 * total)
    # session, user, event, staff row, registration, (webhook), count, page
    assert counts[0] == counts[1] == (8 if filtered else 7)


def test_delivery_log_shows_the_attempts(running, organizer):
    event, _round = running
    hook = add_hook(event, "https://one.example.org/")
    _deliveries(event, hook, 2)
    client = Client()
    client.force_login(organizer)
    page = client.get(reverse("tournaments:webhook_deliveries", args=[event.pk])).content.decode()
    assert "HTTP 500" in page
    assert "Round published" in page
    assert "Every attempt" in page


def test_webhook_list_query_count(running, organizer):
    event, _round = running
    client = Client()
    client.force_login(organizer)
    url = reverse("tournaments:webhook_list", args=[event.pk])
    counts = []
    for total in (1, 3):
        Webhook.objects.all().delete()
        for n in range(total):
            add_hook(event, f"https://{n}.example.org/", kinds=WebhookKind.values)
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_staff_nav_links_webhooks_for_managers_only(running, organizer, judge):
    event, _round = running
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    url = reverse("tournaments:audit_log", args=[event.pk])
    link = reverse("tournaments:webhook_list", args=[event.pk])
    client = Client()
    client.force_login(organizer)
    assert link in client.get(url).content.decode()
    client.force_login(judge)
    assert link not in client.get(url).content.decode()
