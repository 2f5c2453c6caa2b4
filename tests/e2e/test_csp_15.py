"""Every HTML page of the site under the Content-Security-Policy (config/csp.py, issue
#15), in a real browser at 390×844.

The pages are the permission matrix's (tests/tournaments/matrix_spec.py): every GET
route a role may open, in the matrix's world (events A, A2, B, D with rounds, results, a
penalty, a deck check, webhooks, tokens, an export job, a deck, rules and cards), kept
where the server answers an HTML page (not CSV, JSON or a download). An anonymous
visitor, a player and the organizer open each of theirs, the site admin the admin's
index, a change list, a change form, two job progress pages, an add form, a delete
confirmation, the card-file upload and django-axes' access attempts, and anyone
/api/docs/.
The conftest's ``new_page`` fails the test on any violation (the page and the
directive); this test also checks that the scripts still work under the policy: htmx's
live deck check, the admin's progress polling, Swagger UI.

Screenshots: /tmp/shots/csp/ (not committed).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from decks.models import Format, RecheckJob
from tests.decks import conftest as deck_fixtures
from tests.decks.conftest import LEGAL_DECK
from tests.tournaments import matrix_spec as m

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/shots/csp")
ROLES = (m.ANONYMOUS, m.PLAYER, m.ORGANIZER)
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def _session_client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def html_pages(world, clients: dict) -> dict[str, list[str]]:
    """For each role, every GET page of the matrix it may open that answers 200 HTML."""
    pages: dict[str, list[str]] = {role: [] for role in ROLES}
    for spec in m.SPECS:
        named = spec.kwargs != m.AUTO and "*" not in spec.route and "/" not in spec.route
        if not named or not ({"GET", "*"} & set(spec.methods.split())):
            continue
        path = reverse(spec.route, kwargs=m.resolve(spec.kwargs, world))
        if path.startswith("/api/") and spec.route != "api-docs":
            continue
        query = spec.query or (spec.data if spec.methods == "GET" else None)
        if query:
            path += "?" + urlencode(m.resolve(query, world), doseq=True)
        for role in ROLES:
            if role not in spec.roles or role not in spec.allowed or path in pages[role]:
                continue
            response = clients[role].get(path)
            if (
                response.status_code == 200
                and response["Content-Type"].startswith("text/html")
                and "Content-Disposition" not in response
            ):
                pages[role].append(path)
    return pages


def browser_for(new_page, live_server, user):
    """A phone-sized page signed in as ``user`` (a session cookie, no login form)."""
    page = new_page()
    page.set_viewport_size(PHONE)
    if user is not None:
        session = _session_client(user).cookies[settings.SESSION_COOKIE_NAME].value
        page.context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
        )
    return page


def slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.split("?")[0].lower()).rstrip("-")


def visit(page, path: str, shot: str, problems: list[str]) -> None:
    response = page.goto(path)
    if response is None or response.status != 200:
        problems.append(f"{path}: {response.status if response else 'no response'}")
        return
    if response.headers.get("content-security-policy") != POLICY:
        problems.append(f"{path}: policy {response.headers.get('content-security-policy')!r}")
    # htmx and the site's scripts are deferred: by "load" they ran; give the first live
    # poll or swap a moment to happen on this page.
    page.wait_for_load_state("load")
    page.wait_for_timeout(100)
    page.screenshot(path=str(SHOTS / f"{shot}.png"))


@pytest.fixture
def world(transactional_db):
    """The matrix's world (it makes its own card pool and formats)."""
    return m.build_world()


def test_every_page_under_the_policy_on_a_phone(world, new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    clients = {role: _session_client(world.users[role]) for role in ROLES}
    pages = html_pages(world, clients)
    a = world.ids["A"]

    # The list really is the site's pages (so it cannot shrink to nothing unnoticed).
    def url(name, *args):
        return reverse(name, args=args)

    assert {
        url("home"),
        url("tournaments:event_list"),
        url("tournaments:event_detail", a),
        url("tournaments:pairings", a, world.ids["A.round"]),
        url("tournaments:standings", a),
        url("tournaments:decklists", a),
        url("tournaments:round_clock", a, world.ids["A.round"]),
        url("tournaments:poster", a),
        url("decks:check"),
        url("decks:format_list"),
        url("rules:index"),
        url("rules:calculator"),
        url("rules:card", world.ids["card"]),
        url("cardpool:card_list"),
        url("cardpool:card_detail", world.ids["card"]),
        url("login"),
        url("signup"),
        url("api-docs"),
    } <= set(pages[m.ANONYMOUS])
    assert {
        url("tournaments:my_match", a),
        url("tournaments:my_registration", a),
        url("tournaments:my_decklist", a),
        url("tournaments:match", a, world.ids["A.match"]),
        url("decks:deck_list"),
        url("decks:deck_detail", world.ids["deck"]),
        url("decks:deck_edit", world.ids["deck"]),
        url("tokens:account_tokens"),
    } <= set(pages[m.PLAYER])
    assert {
        url("tournaments:dashboard", a),
        url("tournaments:player_detail", a, world.ids["A.registration"]),
        url("tournaments:deck_check_pick", a),
        url("tournaments:deck_check_new", a, world.ids["A.registration"]),
        url("tournaments:deck_check_detail", a, world.ids["A.deck_check"]),
        url("tournaments:deck_check_penalty", a, world.ids["A.deck_check"]),
        url("tournaments:match_slips", a, world.ids["A.round"]),
        url("tournaments:match_result", a, world.ids["A.match"]),
        url("tournaments:edit_pairings", world.ids["A2"], world.ids["A2.round"]),
        url("tournaments:webhook_list", a),
        url("tournaments:webhook_edit", a, world.ids["A.webhook"]),
        url("tournaments:event_tokens", a),
        url("tournaments:metagame", a),
        url("tournaments:audit_log", a),
        url("tournaments:event_edit", a),
        url("venue_poster"),
    } <= set(pages[m.ORGANIZER])
    assert len(pages[m.ANONYMOUS]) >= 30
    assert len(pages[m.PLAYER]) >= 40
    assert len(pages[m.ORGANIZER]) >= 60

    # The admin, as the site admin: a running re-check polls its progress with htmx.
    crossover = Format.objects.get(slug="crossover")
    running = RecheckJob.objects.create(
        format=crossover, format_version=1, status="running", total=10, done=3
    )
    admin_pages = [
        reverse("admin:index"),
        reverse("admin:tournaments_event_changelist"),
        reverse("admin:tournaments_event_change", args=[a]),
        reverse("admin:decks_format_change", args=[crossover.pk]),
        reverse("admin:tournaments_exportjob_progress", args=[world.ids["job"]]),
        # An add form, a delete confirmation, the card-file upload and django-axes' list
        # (with a failed login in it: its action bar and its rows).
        reverse("admin:cardpool_card_add"),
        reverse("admin:decks_deck_delete", args=[world.ids["deck"]]),
        reverse("admin:cardpool_importjob_upload"),
        reverse("admin:axes_accessattempt_changelist"),
        # Last: the page stays open for the htmx check below.
        reverse("admin:decks_recheckjob_progress", args=[running.pk]),
    ]

    problems: list[str] = []
    for role in ROLES:
        page = browser_for(new_page, live_server, world.users[role])
        for number, path in enumerate(pages[role], start=1):
            visit(page, path, f"{role}-{number:02d}{slug(path)}", problems)
    admin = browser_for(new_page, live_server, world.users[m.SITE_ADMIN])
    # After every sign-in above (a successful one resets the address's failures).
    assert not Client().login(username=world.users[m.PLAYER].username, password="wrong")
    assert AccessAttempt.objects.count() == 1
    for number, path in enumerate(admin_pages, start=1):
        visit(admin, path, f"site-admin-{number:02d}{slug(path)}", problems)

    # htmx in the admin: the running job's bar follows the database.
    expect(admin.locator("#job-status")).to_contain_text("3 of 10 decks checked")
    RecheckJob.objects.filter(pk=running.pk).update(done=7)
    expect(admin.locator("#job-status")).to_contain_text("7 of 10 decks checked")

    # Swagger UI ran its start-up script (served from ?script) and drew the API.
    docs = new_page()
    docs.set_viewport_size(PHONE)
    docs.goto(reverse("api-docs"))
    expect(docs.locator(".swagger-ui .information-container .title")).to_be_visible()
    expect(docs.locator(".opblock-tag-section").first).to_be_visible()
    docs.screenshot(path=str(SHOTS / "api-docs.png"))

    assert problems == []
    assert new_page.csp_violations == []


def test_htmx_live_deck_check_under_the_policy(new_page, live_server, crossover):
    """The deck check page checks as one types (htmx posts the form and swaps the report
    in); htmx added no <style> of its own, and site.css hides its request indicator."""
    page = new_page()
    page.set_viewport_size(PHONE)
    response = page.goto(reverse("decks:check"))
    assert response.headers["content-security-policy"] == POLICY
    page.locator("#id_format").select_option("crossover")
    page.locator("textarea").fill(LEGAL_DECK)
    expect(page.locator("#report .verdict")).to_contain_text("Legal")
    page.locator("textarea").fill(LEGAL_DECK.replace("42 スワティ", "41 スワティ"))
    expect(page.locator("#report .verdict")).to_contain_text("Not legal")
    assert page.locator("style").count() == 0
    assert page.evaluate(
        """() => {
            const probe = document.createElement("span");
            probe.className = "htmx-indicator";
            document.body.append(probe);
            const style = getComputedStyle(probe);
            return [style.opacity, style.visibility];
        }"""
    ) == ["0", "hidden"]
    page.screenshot(path=str(SHOTS / "deck-check-live.png"))
    assert new_page.csp_violations == []


def test_the_watch_reports_what_the_policy_blocks(new_page, live_server, db):
    """The conftest's watch sees a violation: an inline style attribute and an inline
    script added to a page are refused and reported with the page and the directive."""
    page = new_page()
    page.goto(reverse("home"))
    page.evaluate(
        """() => {
            document.body.insertAdjacentHTML("beforeend", '<p id="red" style="color: red">x</p>');
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.body.append(script);
        }"""
    )
    home = f"{live_server.url}/"

    def reported() -> list[str]:
        return [v for v in new_page.csp_violations if v.startswith(home + ": ")]

    for _ in range(50):  # the reports come back through the binding
        if {"style-src-attr", "script-src-elem"} <= {v.split()[1] for v in reported()}:
            break
        page.wait_for_timeout(100)
    assert page.evaluate("window.inlineRan === undefined")
    assert page.evaluate("getComputedStyle(document.getElementById('red')).color") != (
        "rgb(255, 0, 0)"
    )
    for directive in ("style-src-attr", "script-src-elem"):
        start = f"{home}: {directive} refused inline"
        assert any(v.startswith(start) for v in reported()), reported()
    new_page.csp_violations.clear()  # seen: the teardown must not fail on them
