"""API tokens (#14): made on the pages, shown once, stored hashed, used as
``Authorization: Bearer``; read-only and event-scoped limits; revoking; who may see and
revoke what; query counts; the OpenAPI schema."""

import datetime as dt
import hashlib
import re
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from decks.models import Deck
from tests.tournaments.factories import UserFactory, open_event
from tournaments import services, tokens
from tournaments.api.tokens import target_event_id
from tournaments.models import ApiToken, EventStaff, ExportJob, StaffRole, TokenScope

API = "/api/v1"
ACCOUNT_TOKENS = "/accounts/tokens/"
TOKEN_RE = re.compile(r"cot_[0-9a-f]{10}_[A-Za-z0-9_-]{43}")


def bearer(secret: str, keyword: str = "Bearer") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {secret}")
    return client


def error_of(response) -> tuple[int, str]:
    body = response.json()
    assert set(body) == {"code", "message", "details"}, body
    return response.status_code, body["code"]


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make(user, scope=TokenScope.READ, event=None, name="bot") -> str:
    return tokens.create_token(user, name=name, scope=scope, event=event).secret


def event_tokens_url(event) -> str:
    return reverse("tournaments:event_tokens", args=[event.pk])


@pytest.fixture
def other_event(crossover):
    return open_event(UserFactory(username="other-organizer"), crossover, name="Other Open")


# --- making a token on the page, seeing it once ------------------------------------------


def test_token_page_creates_token_shown_once_and_stored_hashed(organizer):
    client = signed_in(organizer)
    response = client.post(ACCOUNT_TOKENS, {"name": "Discord bot", "scope": "write"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    secret = TOKEN_RE.search(response.content.decode()).group(0)
    token = ApiToken.objects.get()
    assert (token.user, token.event, token.name, token.scope) == (
        organizer,
        None,
        "Discord bot",
        "write",
    )
    assert token.secret_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret.startswith(f"cot_{token.prefix}_")
    # The database holds no column with the secret (or its random part).
    random_part = secret.split("_", 2)[2]
    row = ApiToken.objects.filter(pk=token.pk).values().get()
    assert not any(random_part in str(value) for value in row.values())
    # The list shows the prefix, never the secret again.
    listing = client.get(ACCOUNT_TOKENS).content.decode()
    assert f"cot_{token.prefix}…" in listing
    assert random_part not in listing
    assert "Discord bot" in listing


def test_token_page_refuses_empty_name_and_unknown_scope(organizer):
    client = signed_in(organizer)
    response = client.post(ACCOUNT_TOKENS, {"name": "  ", "scope": "admin"})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert set(errors) == {"name", "scope"}
    assert ApiToken.objects.count() == 0


def test_token_page_refuses_more_than_the_limit(organizer, monkeypatch):
    monkeypatch.setattr(tokens, "MAX_ACTIVE_TOKENS", 2)
    make(organizer)
    make(organizer)
    response = signed_in(organizer).post(ACCOUNT_TOKENS, {"name": "third", "scope": "read"})
    assert response.status_code == 400
    assert response.context["form"].non_field_errors() == [
        "You have 2 tokens already: revoke one first."
    ]
    assert ApiToken.objects.count() == 2


def test_token_page_needs_a_session_and_csrf(organizer):
    secret = make(organizer, TokenScope.WRITE)
    # A token does not open the pages: it cannot make another token.
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    response = client.post(ACCOUNT_TOKENS, {"name": "child", "scope": "write"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(organizer)
    assert csrf_client.post(ACCOUNT_TOKENS, {"name": "x", "scope": "read"}).status_code == 403
    assert ApiToken.objects.count() == 1


# --- using a token -------------------------------------------------------------------------


def test_token_use_sets_last_used_at_most_once_a_minute(organizer, staffed_event):
    secret = make(organizer)
    token = ApiToken.objects.get()
    assert token.last_used_at is None
    response = bearer(secret).get(f"{API}/events/{staffed_event.pk}/")
    assert response.status_code == 200
    token.refresh_from_db()
    first_use = token.last_used_at
    assert first_use is not None
    with CaptureQueriesContext(connection) as queries:
        assert bearer(secret).get(f"{API}/events/").status_code == 200
    assert not [q for q in queries if q["sql"].startswith("UPDATE")]
    token.refresh_from_db()
    assert token.last_used_at == first_use
    # A minute later the next use is recorded.
    later = first_use + dt.timedelta(seconds=61)
    tokens.authenticate(secret, now=later)
    token.refresh_from_db()
    assert token.last_used_at == later


def test_token_authenticates_as_its_user_with_bearer_or_token_keyword(organizer, staffed_event):
    secret = make(organizer, TokenScope.WRITE)
    for keyword in ("Bearer", "Token", "bearer"):
        response = bearer(secret, keyword).get(f"{API}/events/{staffed_event.pk}/staff/")
        assert response.status_code == 200, keyword  # the staff list: staff only


def test_token_write_needs_no_csrf(organizer, crossover):
    secret = make(organizer, TokenScope.WRITE)
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    response = client.post(
        f"{API}/events/",
        {"name": "Token Cup", "format": "crossover", "date": "2026-12-01", "capacity": 8},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["organizer"] == organizer.get_username()


def test_revoked_token_refused(organizer, staffed_event):
    secret = make(organizer)
    token = ApiToken.objects.get()
    response = signed_in(organizer).post(reverse("tokens:account_token_revoke", args=[token.pk]))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    response = bearer(secret).get(f"{API}/events/{staffed_event.pk}/")
    assert error_of(response) == (401, "token_revoked")
    # Revoked tokens leave the list.
    assert signed_in(organizer).get(ACCOUNT_TOKENS).context["tokens"] == []


def test_unknown_malformed_and_forged_tokens_refused(organizer, staffed_event):
    secret = make(organizer)
    prefix = ApiToken.objects.get().prefix
    url = f"{API}/events/{staffed_event.pk}/"
    cases = {
        "cot_0123456789_" + "A" * 43: "invalid_token",  # unknown prefix
        f"cot_{prefix}_" + "B" * 43: "invalid_token",  # right prefix, wrong secret
        secret[:-1]: "invalid_token",  # truncated
        "not-a-token": "invalid_token",
        f"{secret} extra": "invalid_token",
    }
    for raw, code in cases.items():
        assert error_of(bearer(raw).get(url)) == (401, code), raw
    # Another scheme is not ours: the request is anonymous (and may read a public event).
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic dXNlcjpwYXNz")
    assert client.get(url).status_code == 200


def test_token_of_inactive_user_refused(organizer, staffed_event):
    secret = make(organizer)
    organizer.is_active = False
    organizer.save(update_fields=["is_active"])
    response = bearer(secret).get(f"{API}/events/{staffed_event.pk}/")
    assert error_of(response) == (401, "user_inactive")


# --- read-only tokens --------------------------------------------------------------------


def test_read_only_token_reads_but_cannot_write(organizer, staffed_event, judge, crossover):
    secret = make(organizer, TokenScope.READ)
    client = bearer(secret)
    assert client.get(f"{API}/events/{staffed_event.pk}/staff/").status_code == 200
    judge_row = EventStaff.objects.get(event=staffed_event, user=judge)
    writes = [
        client.post(
            f"{API}/events/",
            {"name": "X", "format": "crossover", "date": "2026-12-01", "capacity": 8},
            format="json",
        ),
        client.patch(f"{API}/events/{staffed_event.pk}/", {"capacity": 20}, format="json"),
        client.delete(f"{API}/events/{staffed_event.pk}/staff/{judge_row.pk}/"),
        client.post(f"{API}/decks/", {}, format="json"),
    ]
    for response in writes:
        assert error_of(response) == (403, "token_read_only"), response.request
    staffed_event.refresh_from_db()
    assert staffed_event.capacity == 16
    assert EventStaff.objects.filter(pk=judge_row.pk).exists()


def test_read_write_token_writes(organizer, staffed_event):
    client = bearer(make(organizer, TokenScope.WRITE))
    response = client.patch(f"{API}/events/{staffed_event.pk}/", {"capacity": 20}, format="json")
    assert response.status_code == 200, response.json()
    staffed_event.refresh_from_db()
    assert staffed_event.capacity == 20


# --- event-scoped tokens -----------------------------------------------------------------


def test_event_token_works_on_its_event_only(organizer, staffed_event, other_event):
    client = bearer(make(organizer, TokenScope.WRITE, event=staffed_event))
    assert client.get(f"{API}/events/{staffed_event.pk}/").status_code == 200
    assert client.get(f"{API}/events/{staffed_event.pk}/registrations/").status_code == 200
    response = client.patch(f"{API}/events/{staffed_event.pk}/", {"capacity": 24}, format="json")
    assert response.status_code == 200
    # Another event, read or write: refused, whatever the user may do there.
    for response in (
        client.get(f"{API}/events/{other_event.pk}/"),
        client.get(f"{API}/events/{other_event.pk}/registrations/"),
        client.post(f"{API}/events/{other_event.pk}/register/", {}, format="json"),
    ):
        code = error_of(response)
        assert code == (403, "token_wrong_event")
        assert response.json()["details"] == {"event": staffed_event.pk}
    # Outside events it reads what anyone may read, but never writes.
    assert client.get(f"{API}/events/").status_code == 200
    assert client.get(f"{API}/cards/").status_code == 200
    response = client.post(
        f"{API}/events/",
        {"name": "X", "format": "crossover", "date": "2026-12-01", "capacity": 8},
        format="json",
    )
    assert error_of(response) == (403, "token_event_only")
    # DRF's own error handler (the decks API) answers in the same shape.
    assert error_of(client.post(f"{API}/decks/", {}, format="json")) == (403, "token_event_only")


def test_event_token_outside_its_event_is_an_anonymous_reader(organizer, staffed_event, crossover):
    """An event-scoped token acts as its maker on its event only: elsewhere it reads what
    an anonymous visitor may (the card list), never the maker's own decks or exports."""
    deck = Deck.objects.create(owner=organizer, format=crossover, name="Private deck")
    job = ExportJob.objects.create(
        event=staffed_event, created_by=organizer, kind="standings", file_format="csv"
    )
    own = bearer(make(organizer, TokenScope.READ))
    assert [d["id"] for d in own.get(f"{API}/decks/").json()["results"]] == [deck.pk]
    client = bearer(make(organizer, TokenScope.WRITE, event=staffed_event))
    for url in (
        f"{API}/decks/",
        f"{API}/decks/{deck.pk}/",
        f"{API}/export-jobs/{job.pk}/",
        f"{API}/export-jobs/{job.pk}/download/",
    ):
        response = client.get(url)
        assert error_of(response) == (403, "token_event_only"), url
        assert response.json()["details"] == {"event": staffed_event.pk}
    # Public reads still work, answered as to a visitor who is not signed in.
    cards = client.get(f"{API}/cards/")
    assert cards.status_code == 200
    assert cards.json() == APIClient().get(f"{API}/cards/").json()
    events = client.get(f"{API}/events/")
    assert events.status_code == 200
    assert events.json() == APIClient().get(f"{API}/events/").json()
    # On its own event it is still its maker (the staff-only list).
    assert client.get(f"{API}/events/{staffed_event.pk}/staff/").status_code == 200


def test_target_event_read_from_kwargs_viewset_or_path():
    factory = APIRequestFactory()

    def target(path, **context):
        return target_event_id(Request(factory.get(path), parser_context=context))

    assert target("/api/v1/events/7/rounds/", kwargs={"event_pk": "7"}) == 7
    view = SimpleNamespace(basename="event")
    assert target("/api/v1/events/8/standings/", kwargs={"pk": "8"}, view=view) == 8
    # A route under an event whose kwargs name it otherwise is still that event's.
    assert target("/api/v1/events/9/something-new/", kwargs={"pk": "3"}) == 9
    assert target("/api/v1/events/", kwargs={}) is None
    assert target("/api/v1/cards/5/", kwargs={"pk": "5"}) is None
    assert target("/api/v1/events/lookup/", kwargs={}) == -1  # no event: refused


def test_event_token_stops_when_its_maker_leaves_the_staff(organizer, judge, staffed_event):
    secret = make(judge, TokenScope.READ, event=staffed_event)
    assert bearer(secret).get(f"{API}/events/{staffed_event.pk}/staff/").status_code == 200
    staff = EventStaff.objects.get(event=staffed_event, user=judge)
    services.remove_staff(staff, actor=organizer)
    response = bearer(secret).get(f"{API}/events/{staffed_event.pk}/")
    assert error_of(response) == (401, "not_event_staff")


def test_event_token_needs_staff(staffed_event, outsider):
    with pytest.raises(services.errors.NotAllowed):
        tokens.create_token(outsider, name="x", scope="read", event=staffed_event)
    response = signed_in(outsider).post(
        event_tokens_url(staffed_event), {"name": "x", "scope": "read"}
    )
    assert response.status_code == 403
    assert ApiToken.objects.count() == 0


# --- the event's tokens page -------------------------------------------------------------


def test_event_tokens_page_creates_and_lists(staffed_event, judge, organizer):
    response = signed_in(judge).post(
        event_tokens_url(staffed_event), {"name": "Overlay", "scope": "read"}
    )
    assert response.status_code == 200
    secret = TOKEN_RE.search(response.content.decode()).group(0)
    token = ApiToken.objects.get()
    assert (token.user, token.event, token.scope) == (judge, staffed_event, "read")
    page = signed_in(organizer).get(event_tokens_url(staffed_event))
    assert page.status_code == 200
    assert [t.name for t in page.context["tokens"]] == ["Overlay"]
    assert secret.split("_", 2)[2] not in page.content.decode()
    # The maker sees it among their own tokens too, with its event.
    assert "Overlay" in signed_in(judge).get(ACCOUNT_TOKENS).content.decode()


def test_outsider_cannot_see_or_revoke_event_tokens(staffed_event, judge, outsider, make_players):
    make(judge, event=staffed_event)
    token = ApiToken.objects.get()
    player = make_players(1)[0]
    services.register_player(staffed_event, actor=player, deck_text="")
    revoke_url = reverse("tournaments:event_token_revoke", args=[staffed_event.pk, token.pk])
    for user in (outsider, player):
        client = signed_in(user)
        assert client.get(event_tokens_url(staffed_event)).status_code == 403
        assert client.post(revoke_url).status_code == 403
    assert Client().get(event_tokens_url(staffed_event)).status_code == 302  # log in first
    token.refresh_from_db()
    assert token.revoked_at is None


def test_event_token_revoked_by_maker_or_manager_not_other_judge(
    staffed_event, judge, co_organizer, organizer
):
    other_judge = UserFactory(username="judge-two")
    services.add_staff(staffed_event, actor=organizer, user=other_judge, role=StaffRole.JUDGE)
    make(judge, event=staffed_event, name="judge's")
    token = ApiToken.objects.get()
    url = reverse("tournaments:event_token_revoke", args=[staffed_event.pk, token.pk])
    assert signed_in(other_judge).post(url).status_code == 403
    page = signed_in(other_judge).get(event_tokens_url(staffed_event))
    assert page.context["tokens"][0].can_revoke is False
    token.refresh_from_db()
    assert token.revoked_at is None
    assert signed_in(co_organizer).post(url).status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_user_cannot_revoke_another_users_token(organizer, outsider):
    make(organizer)
    token = ApiToken.objects.get()
    url = reverse("tokens:account_token_revoke", args=[token.pk])
    assert signed_in(outsider).post(url).status_code == 404
    assert Client().post(url).status_code == 302  # log in first
    token.refresh_from_db()
    assert token.revoked_at is None


# --- query counts --------------------------------------------------------------------------


def page_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def test_account_tokens_page_queries_do_not_grow(organizer, staffed_event):
    client = signed_in(organizer)
    make(organizer)
    one = page_queries(client, ACCOUNT_TOKENS)
    make(organizer, event=staffed_event)
    make(organizer, TokenScope.WRITE)
    assert len(client.get(ACCOUNT_TOKENS).context["tokens"]) == 3
    assert page_queries(client, ACCOUNT_TOKENS) == one


def test_event_tokens_page_queries_do_not_grow(organizer, judge, co_organizer, staffed_event):
    client = signed_in(organizer)
    url = event_tokens_url(staffed_event)
    make(judge, event=staffed_event)
    one = page_queries(client, url)
    make(co_organizer, event=staffed_event)
    make(organizer, event=staffed_event)
    assert len(client.get(url).context["tokens"]) == 3
    assert page_queries(client, url) == one


def test_token_authentication_costs_one_query(organizer, staffed_event):
    secret = make(organizer)
    url = f"{API}/events/{staffed_event.pk}/"
    bearer(secret).get(url)  # records last_used_at
    session = APIClient()
    session.force_login(organizer)
    with CaptureQueriesContext(connection) as by_session:
        assert session.get(url).status_code == 200
    with CaptureQueriesContext(connection) as by_token:
        assert bearer(secret).get(url).status_code == 200
    # A session costs its session row and the user row; a token one joined query.
    assert len(by_token) == len(by_session) - 1


# --- the schema ----------------------------------------------------------------------------


def test_schema_documents_bearer_tokens(db):
    schema = Client().get("/api/schema/?format=json").json()
    scheme = schema["components"]["securitySchemes"]["apiToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert {"apiToken": []} in schema["paths"]["/api/v1/events/"]["post"]["security"]


def test_token_last_used_shown_on_the_list(organizer):
    make(organizer, name="poller")
    ApiToken.objects.update(last_used_at=timezone.now())
    page = signed_in(organizer).get(ACCOUNT_TOKENS)
    assert page.context["tokens"][0].last_used_at is not None
    assert "Never" not in page.content.decode()
