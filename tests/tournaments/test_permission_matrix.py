"""Every route of the site × every role (tests/tournaments/matrix_spec.py).

The routes come from Django's URL resolver when the tests are collected, so a route added
later without a line in ``matrix_spec.SPECS`` fails :func:`test_every_route_has_a_spec`.
Each (route, method, variant, role) is one test: an allowed role gets through the
permission check; a refused one gets the expected refusal (404 for what it may not see,
403 for a missing permission on what it sees, the login page for an anonymous caller of
a page that needs one, 403 ``not_authenticated`` from the API) and nothing changes.

The world is built once for the module, inside a transaction rolled back at the end; every
test runs in a savepoint rolled back after it, like ``TestCase.setUpTestData``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from tournaments import services
from tournaments.models import AuditEntry, Registration
from tournaments.services.errors import NotAllowed

from . import matrix_spec as m

IGNORED_METHODS = {"head", "options", "trace"}  # answered by Django/DRF for every view
REFUSED_STATUSES = {401, 403, 404, 405}


# --- the routes ------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    key: str  # "namespace:name", the API router's name, or the pattern of an unnamed route
    pattern: str
    methods: tuple[str, ...]
    kind: str  # "page", "api" or "admin"
    named: bool


def accepted_methods(callback) -> tuple[str, ...]:
    """The HTTP methods a view answers (HEAD and OPTIONS left out)."""
    actions = getattr(callback, "actions", None)
    if actions:  # a DRF viewset route
        return tuple(method.upper() for method in actions)
    view_class = getattr(callback, "view_class", None)
    if view_class is not None:  # a class-based view (Django's or DRF's)
        return tuple(
            method.upper()
            for method in view_class.http_method_names
            if method not in IGNORED_METHODS and hasattr(view_class, method)
        )
    # A function view: require_POST / require_http_methods keep their list in a closure.
    function = callback
    while function is not None:
        code = getattr(function, "__code__", None)
        if code is not None and "request_method_list" in code.co_freevars:
            cell = function.__closure__[code.co_freevars.index("request_method_list")]
            return tuple(x for x in cell.cell_contents if x.lower() not in IGNORED_METHODS)
        function = getattr(function, "__wrapped__", None)
    return ("GET", "POST")


def _walk(patterns, prefix="", namespace=None):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = namespace
            if entry.namespace:
                inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        else:
            yield prefix + str(entry.pattern), namespace, entry


def site_routes() -> dict[str, Route]:
    """Every route of the site by key. The API's format-suffix twins (``.json``) share
    their route's name and view, so they count as that route."""
    routes: dict[str, Route] = {}
    for pattern, namespace, entry in _walk(get_resolver().url_patterns):
        key = pattern  # an unnamed route
        if entry.name:
            key = f"{namespace}:{entry.name}" if namespace else entry.name
        methods = accepted_methods(entry.callback)
        if key in routes:
            known = routes[key]
            merged = known.methods + tuple(x for x in methods if x not in known.methods)
            routes[key] = Route(key, known.pattern, merged, known.kind, known.named)
            continue
        kind = "api" if pattern.startswith("api/") else "admin" if namespace == "admin" else "page"
        routes[key] = Route(key, pattern, methods, kind, bool(entry.name))
    return routes


def _is_glob(key: str) -> bool:
    return "*" in key


def specs_for(route: Route) -> list[m.Spec]:
    """The route's own lines, or else the lines of the first glob that matches it."""
    own = [spec for spec in m.SPECS if spec.route == route.key]
    if own:
        return own
    for spec in m.SPECS:
        if _is_glob(spec.route) and fnmatchcase(route.key, spec.route):
            return [line for line in m.SPECS if line.route == spec.route]
    return []


def spec_methods(spec: m.Spec, route: Route) -> tuple[str, ...]:
    return route.methods if spec.methods == "*" else tuple(spec.methods.split())


# --- the cases -------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    spec: m.Spec
    route: Route
    method: str
    role: str

    @property
    def id(self) -> str:
        variant = f"({self.spec.variant})" if self.spec.variant else ""
        return f"{self.route.key}{variant}-{self.method}-{self.role}"

    @property
    def expected(self) -> str:
        """What the role must get: "ok", "login", "admin_login", "403" or "404"."""
        spec, role, kind = self.spec, self.role, self.route.kind
        if role in spec.allowed:
            return "ok"
        login = spec.login
        if login is None:
            login = kind != "api" or self.method not in m.SAFE_METHODS
        if role == m.ANONYMOUS and login:
            return "admin_login" if kind == "admin" else "login"
        if role in spec.not_found:
            return "404"
        return "admin_login" if kind == "admin" else "403"


ROUTES = site_routes()


def _cases() -> list:
    cases = []
    for route in ROUTES.values():
        for spec in specs_for(route):
            for method in spec_methods(spec, route):
                if method not in route.methods:
                    continue  # test_every_spec_matches_a_route reports it
                for role in spec.roles:
                    case = Case(spec, route, method, role)
                    marks = []
                    if role in spec.xfail:
                        marks.append(pytest.mark.xfail(strict=True, reason=spec.xfail[role]))
                    cases.append(pytest.param(case, id=case.id, marks=marks))
    return cases


CASES = _cases()


# --- the world -------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _quiet_refusals():
    """Django logs every 403 and 404 with its traceback: thousands here, all expected."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            world = m.build_world()
            world.clients = {}
            world.sessions = {}  # a signed-in session per role, made once
            for role, user in world.users.items():
                if user is not None:
                    client = Client()
                    client.force_login(user)
                    world.sessions[role] = client.cookies[settings.SESSION_COOKIE_NAME].value
            yield world
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture
def db(world, django_db_blocker):
    """The world, and this test's changes rolled back after it (a savepoint in the world's
    transaction, as ``TestCase`` does). It replaces pytest-django's ``db`` in this module:
    under that name pytest-django still sets the test database up, without the cost of a
    ``TestCase`` per test (a third of the matrix's time)."""
    cache.clear()  # the throttles count in the cache
    with django_db_blocker.unblock(), transaction.atomic():
        yield world
        transaction.set_rollback(True)


def row_changes() -> int | None:
    """How many rows this connection has inserted, updated or deleted so far (every
    table), or None where the database cannot tell."""
    queries = {
        "sqlite": "SELECT total_changes()",
        "postgresql": "SELECT COALESCE(SUM(n_tup_ins + n_tup_upd + n_tup_del), 0) "
        "FROM pg_stat_xact_all_tables",
    }
    if connection.vendor not in queries:
        return None
    with connection.cursor() as cursor:
        cursor.execute(queries[connection.vendor])
        return cursor.fetchone()[0]


def snapshot(method: str) -> tuple:
    """The count of rows written to any table (and of audit entries, for a command): a
    refused request changes neither."""
    audit = AuditEntry.objects.count() if method not in m.SAFE_METHODS else None
    return audit, row_changes()


def _fill_pattern(pattern: str, kwargs: dict) -> str:
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda found: str(kwargs[found.group(1)]), pattern)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda found: str(kwargs[found.group(1)]), path)
    return "/" + path.replace("^", "").replace("$", "")


def _kwarg_names(pattern: str) -> list[str]:
    return re.findall(r"<(?:\w+:)?(\w+)>", pattern) + re.findall(r"\(\?P<(\w+)>", pattern)


def url_of(case: Case, world) -> str:
    spec, route = case.spec, case.route
    if spec.kwargs == m.AUTO:
        names = [name for name in _kwarg_names(route.pattern) if name != "format"]
        kwargs = m.resolve({name: m.AUTO_KWARGS[name] for name in names}, world)
    else:
        kwargs = m.resolve(spec.kwargs, world)
    path = (
        reverse(route.key, kwargs=kwargs) if route.named else _fill_pattern(route.pattern, kwargs)
    )
    if spec.query:
        path += "?" + urlencode(m.resolve(spec.query, world))
    return path


def client_for(case: Case, world):
    """A client of the case's kind signed in as its role (made once, fresh cookies)."""
    api = case.route.kind == "api"
    client = world.clients.get((api, case.role))
    if client is None:
        client = world.clients[(api, case.role)] = APIClient() if api else Client()
    client.cookies = SimpleCookie()
    if case.role in world.sessions:
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[case.role]
    return client


def send(case: Case, world, path: str):
    data = m.resolve(case.spec.data or {}, world)
    method = case.method.lower()
    client = client_for(case, world)
    if case.route.kind == "api":
        options = {} if method == "get" else {"format": "json"}
        return getattr(client, method)(path, data, **options)
    if method in ("get", "post"):
        return getattr(client, method)(path, data)
    return getattr(client, method)(path)


def _error_code(response) -> str | None:
    body = getattr(response, "data", None)
    if not isinstance(body, dict):
        return None
    if "code" in body:  # the tournaments API's error shape
        return body["code"]
    return getattr(body.get("detail"), "code", None)  # DRF's own shape


def _redirects_to(response, login_url: str, path: str) -> bool:
    return response.status_code == 302 and response["Location"].startswith(
        f"{login_url}?next={path}"
    )


def describe(response) -> str:
    where = f" -> {response['Location']}" if response.has_header("Location") else ""
    body = b"" if response.streaming else response.content[:300]
    return f"{response.status_code}{where} {body!r}"


def check(case: Case, response, path: str) -> None:
    expected, status = case.expected, response.status_code
    api = case.route.kind == "api"
    seen = describe(response)
    if expected == "ok":
        assert not _redirects_to(response, reverse("login"), ""), seen
        assert not _redirects_to(response, reverse("admin:login"), ""), seen
        if case.spec.ok is not None:
            assert status in case.spec.ok, seen
        elif case.method == "GET":
            assert status == 200, seen
        else:
            assert status not in REFUSED_STATUSES, seen
    elif expected == "login" and api:
        assert (status, _error_code(response)) == (403, "not_authenticated"), seen
    elif expected == "login":
        assert _redirects_to(response, reverse("login"), path), seen
    elif expected == "admin_login":
        assert _redirects_to(response, reverse("admin:login"), path), seen
    else:
        assert status == int(expected), seen
        if api and status == 403:
            assert _error_code(response) != "not_authenticated", seen


# --- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_route_permission(case: Case, db):
    world = db
    path = url_of(case, world)
    refused = case.expected != "ok"
    before = snapshot(case.method) if refused else None
    response = send(case, world, path)
    check(case, response, path)
    if refused:
        assert snapshot(case.method) == before, "a refused request changed something"


def test_row_changes_sees_every_write(db):
    """The "nothing changed" check sees a write to any table (and a refused one not)."""
    world = db
    registration = Registration.objects.get(pk=world.ids["A.registration"])
    before = snapshot("POST")
    with pytest.raises(NotAllowed):
        services.drop_player(registration, actor=world.users[m.OPPONENT])
    assert snapshot("POST") == before
    services.drop_player(registration, actor=world.users[m.PLAYER])
    audit, rows = snapshot("POST")
    assert audit == before[0] + 1
    if rows is not None:
        assert rows > before[1]


def test_every_route_has_a_spec():
    missing = [
        f"{route.key} {method}  ({route.pattern})"
        for route in ROUTES.values()
        for method in route.methods
        if not any(method in spec_methods(spec, route) for spec in specs_for(route))
    ]
    assert not missing, "routes without a line in matrix_spec.SPECS:\n" + "\n".join(missing)


def test_every_spec_matches_a_route():
    wrong = []
    for spec in m.SPECS:
        if _is_glob(spec.route) and spec.route not in ROUTES:
            if not any(fnmatchcase(key, spec.route) for key in ROUTES):
                wrong.append(f"{spec.route}: matches no route")
            continue
        route = ROUTES.get(spec.route)
        if route is None:
            wrong.append(f"{spec.route}: no such route")
            continue
        unknown = set(spec_methods(spec, route)) - set(route.methods)
        if unknown:
            wrong.append(f"{spec.route}: does not accept {sorted(unknown)}")
    assert not wrong, "\n".join(wrong)


B_ROLE = {
    m.ORGANIZER: m.ORGANIZER_B,
    m.CO_ORGANIZER: m.CO_ORGANIZER_B,
    m.JUDGE: m.JUDGE_B,
    m.PLAYER: m.PLAYER_B,
    m.OPPONENT: m.PLAYER_B,
    m.OTHER_PLAYER: m.PLAYER_B,
}


def test_an_outsider_for_each_role():
    """Every event route is tried by every role; where it is not open to every signed-in
    user, each role allowed in event A has its counterpart of event B refused (and the
    outsider and anonymous)."""
    wrong = []
    for spec in m.SPECS:
        event_route = spec.route.startswith(("tournaments:", "event-", "export-"))
        if event_route and spec.roles != m.EVENT_ROLES:
            wrong.append(f"{spec.route}({spec.variant}): not tried by every role")
        if spec.roles != m.EVENT_ROLES or m.OUTSIDER in spec.allowed:
            continue
        if spec.route in m.SITE_WIDE_STAFF:
            continue
        for role in spec.allowed:
            if B_ROLE.get(role) in spec.allowed:
                wrong.append(f"{spec.route}({spec.variant}): {B_ROLE[role]} allowed like {role}")
        if m.ANONYMOUS in spec.allowed:
            wrong.append(f"{spec.route}({spec.variant}): anonymous allowed, outsider not")
    assert not wrong, "\n".join(wrong)
