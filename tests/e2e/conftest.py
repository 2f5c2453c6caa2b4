"""Browser tests: Playwright (the Python package) driving Debian's Chromium against
pytest-django's live server.

The browser is the system one (``/usr/bin/chromium``, Debian package ``chromium``;
``./dev test`` installs it when it may), never a downloaded build. Without it these
tests are skipped with the reason, unless ``REQUIRE_BROWSER=1`` (CI), which turns the
skip into a failure so a CI run cannot pass without the end-to-end test.

Every browser context the tests open reports Content-Security-Policy violations
(config/csp.py); one fails the test, naming the page and the directive.
"""

from __future__ import annotations

import contextlib
import os
import shutil

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def chromium_path() -> str | None:
    configured = os.environ.get("CHROMIUM")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    for candidate in CHROMIUM_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium")


def _unavailable(reason: str):
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def _allow_database_calls_beside_playwright():
    """Playwright's sync API runs an event loop in the test thread; the test's own
    database calls (fixtures, assertions) happen outside it, so Django's async guard would
    be a false alarm. Set only while the browser runs: the variable must not reach a
    deployment check (``check --deploy`` refuses it)."""
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def browser(_allow_database_calls_beside_playwright):
    path = chromium_path()
    if path is None:
        _unavailable(
            "Debian's Chromium is not installed (apt-get install chromium; "
            "or set CHROMIUM=/path/to/chromium)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the dev extra installs it
        _unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    manager = sync_playwright().start()
    # --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
    browser = manager.chromium.launch(executable_path=path, headless=True, args=["--no-sandbox"])
    yield WatchedBrowser(browser)
    browser.close()
    manager.stop()


# Every page reports what the Content-Security-Policy (config/csp.py) blocked: the
# browser's securitypolicyviolation event, passed to Python through a binding (it
# survives navigations, unlike a list in the page).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolation({
    page: document.location.href,
    directive: event.effectiveDirective || event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
    source: event.sourceFile ? event.sourceFile + ":" + event.lineNumber : "",
  });
}, true);
"""


def csp_problem(record: dict) -> str:
    where = f" ({record['source']})" if record.get("source") else ""
    sample = f" {record['sample']!r}" if record.get("sample") else ""
    return (
        f"{record['page']}: {record['directive']} refused {record['blocked'] or 'inline'}"
        f"{sample}{where}"
    )


def watch_csp(context, violations: list[str]) -> None:
    """Collect the context's Content-Security-Policy violations into ``violations``: the
    DOM event and Chromium's console message ("Refused to ... Content Security Policy")."""
    context.expose_binding(
        "__cspViolation", lambda source, record: violations.append(csp_problem(record))
    )
    context.add_init_script(CSP_LISTENER)

    def on_console(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{message.page.url if message.page else '?'}: {message.text}")

    context.on("console", on_console)


class WatchedBrowser:
    """The session's browser, whose every new context (``new_page``'s and those a test
    makes itself) reports its violations to the running test's ``violations``."""

    def __init__(self, browser):
        self._browser = browser
        self.violations: list[str] = []

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        watch_csp(context, self.violations)
        return context

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(autouse=True)
def _no_csp_violation(request):
    """A Content-Security-Policy violation on any page a browser test opened fails it at
    teardown, naming the page and the directive."""
    if "browser" not in request.fixturenames:
        yield
        return
    violations = request.getfixturevalue("browser").violations
    violations.clear()
    yield
    assert not violations, "Content-Security-Policy violations:\n" + "\n".join(
        dict.fromkeys(violations)
    )


@pytest.fixture
def new_page(browser, live_server):
    """``new_page()`` opens a page in a fresh browser context (its own cookies: one per
    user), with the live server as base URL and English as the browser language.
    ``new_page.csp_violations``: the Content-Security-Policy violations so far."""
    contexts = []

    def make(locale: str = "en-US"):
        context = browser.new_context(base_url=live_server.url, locale=locale)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    make.csp_violations = browser.violations
    yield make
    for context in contexts:
        for page in context.pages:  # deliver the reports still on their way
            with contextlib.suppress(Exception):  # a crashed page has nothing to say
                page.evaluate("0")
        context.close()


@pytest.fixture
def log_in(live_server):
    """Sign a page in through the login form (the real one, not a session cookie)."""

    def do(page, username: str, password: str) -> None:
        page.goto("/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.locator("form").get_by_role("button", name="Log in").click()
        page.wait_for_load_state()

    return do
