"""What an import may cost (issue #21): an event file is held to every limit the forms and
the API apply, to per-file totals and a per-user import quota; its decklists are checked
here (the file's reports never stored) and only checked, legal lists feed the metagame;
an API body too large to read is the API's JSON error on every route.

Each refusal names its limit and JSON path exactly, and writes nothing."""

from __future__ import annotations

import copy
import datetime as dt
import importlib
import json
import re
import uuid

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from decks.services import check_text
from tests.decks.conftest import LEGAL_DECK
from tournaments.event_file import EventFileRejected, Problem, export_event, import_event
from tournaments.event_file import limits as limits_module
from tournaments.event_file.limits import (
    AUDIT_ENTRIES,
    DECKLIST_CHARS,
    DECKLIST_LINES,
    DISPLAY_NAME_CHARS,
    FILE_BYTES,
    JSON_DATA_CHARS,
    REGISTRATIONS,
    ROUNDS,
    ROWS,
    SUBMISSIONS_PER_MATCH,
    USERS,
)
from tournaments.event_file.reading import read_document
from tournaments.models import (
    AuditEntry,
    Event,
    EventFileImport,
    Registration,
    Round,
)

from .factories import UserFactory
from .test_event_file_14 import _busy_event_pk, busy_event  # noqa: F401 (fixtures)
from .test_exports import client_for

pytestmark = pytest.mark.django_db

API_IMPORT = "/api/v1/event-files/"
PAGE_IMPORT = "/events/import/"
# 5 copies of a card limited to 4: illegal, whatever a file says.
ILLEGAL_DECK = "400 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n"


def counts() -> dict:
    return {
        "events": Event.objects.count(),
        "users": get_user_model().objects.count(),
        "registrations": Registration.objects.count(),
        "rounds": Round.objects.count(),
        "audit": AuditEntry.objects.count(),
        "imports": EventFileImport.objects.count(),
    }


def refused(document, *, actor=None) -> list[tuple[str, str]]:
    """The problems ``import_event`` refuses ``document`` with; asserts nothing was written."""
    before = counts()
    with pytest.raises(EventFileRejected) as caught:
        import_event(document, actor=actor)
    assert counts() == before
    return [(problem.path, problem.message) for problem in caught.value.problems]


def new_uid(document: dict) -> dict:
    document = copy.deepcopy(document)
    document["event"]["uid"] = str(uuid.uuid4())
    return document


@pytest.fixture
def busy_document(busy_event):  # noqa: F811
    """The busy event's file (penalties, a deck check, disputes, extra time), a new uid."""
    return new_uid(export_event(busy_event))


@pytest.fixture
def small_document(busy_document):
    """The busy event's file for the tests that import it: nine players, each with a
    legal list (the module's events share the busy event's card pool and format)."""
    return busy_document


@pytest.fixture
def crossover(busy_event):  # noqa: F811
    return busy_event.format


def api_client(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


# --- each value within the forms' and the API's limits -------------------------------------


def test_values_beyond_the_forms_and_api_limits_are_refused_with_their_paths(busy_document):
    document = busy_document
    document["event"]["round_minutes"] = 24 * 60 + 1
    document["event"]["swiss_rounds"] = 31
    document["event"]["registration_deadline"] = "1999-12-31T23:00:00+00:00"
    document["users"][2]["display_name"] = "n" * (DISPLAY_NAME_CHARS + 1)
    document["registrations"][1]["decklist"]["text"] = "a" * (DECKLIST_CHARS + 1)
    document["rounds"][3]["matches"][0]["extra_minutes"] = 121
    document["rounds"][3]["matches"][1]["submissions"][1]["reason"] = "r" * 501
    document["penalties"][0]["note"] = "n" * 2001
    document["deck_checks"][0]["registered_text"] = "a" * 20_001
    document["deck_checks"][0]["note"] = "n" * 2001
    document["audit"][0]["reason"] = "r" * 2001
    document["audit"][0]["before"] = {"tables": "t" * JSON_DATA_CHARS}
    assert refused(document) == [
        ("event.swiss_rounds", "31 is not from 1 to 30"),
        ("event.round_minutes", "1441 is not from 1 to 1440"),
        ("event.registration_deadline", "1999-12-31T23:00:00+00:00 is not from 2000 to 8999"),
        ("users[2].display_name", "302 characters, more than the 301 allowed"),
        ("registrations[1].decklist.text", "20001 characters, more than the 20000 allowed"),
        ("rounds[3].matches[0].extra_minutes", "121 is not from 0 to 120"),
        ("rounds[3].matches[1].submissions[1].reason", "501 characters, more than the 500 allowed"),
        ("penalties[0].note", "2001 characters, more than the 2000 allowed"),
        ("deck_checks[0].registered_text", "20001 characters, more than the 20000 allowed"),
        ("deck_checks[0].note", "2001 characters, more than the 2000 allowed"),
        ("audit[0].reason", "2001 characters, more than the 2000 allowed"),
        (
            "audit[0].before",
            f"{JSON_DATA_CHARS + 13} characters of JSON, more than the {JSON_DATA_CHARS} allowed",
        ),
    ]


def test_limits_are_the_forms_and_api_constants(busy_document):
    from decks.forms import MAX_DECKLIST_CHARS
    from tournaments.api.limits import NOTE_CHARS, REASON_CHARS
    from tournaments.services.events import MAX_CAPACITY, MAX_ROUND_MINUTES, MAX_SWISS_ROUNDS

    assert DECKLIST_CHARS == MAX_DECKLIST_CHARS == 20_000
    assert limits_module.SUBMISSION_REASON_CHARS == REASON_CHARS == 500
    assert limits_module.AUDIT_REASON_CHARS == NOTE_CHARS == 2000
    assert (MAX_CAPACITY, MAX_ROUND_MINUTES, MAX_SWISS_ROUNDS) == (100_000, 1440, 30)
    assert REGISTRATIONS <= MAX_CAPACITY
    assert ROUNDS == MAX_SWISS_ROUNDS + 8  # and the rounds of a top 256
    assert FILE_BYTES == 20 * 1024 * 1024
    assert JSON_DATA_CHARS == 50_000 * 53 + 65_536


def test_capacity_bounds_top_cut_and_rounds_are_those_of_the_events_service(busy_document):
    document = copy.deepcopy(busy_document)
    document["event"]["capacity"] = 100_001
    assert refused(document) == [("event.capacity", "100001 is not from 2 to 100000")]
    document = busy_document
    document["event"]["capacity"] = 2
    document["event"]["swiss_rounds"] = 3
    assert refused(document) == [
        ("event.top_cut_size", "the top cut (4) is larger than the capacity (2)"),
        ("event.capacity", "8 players are registered, more than the capacity (2)"),
        ("rounds", "4 Swiss rounds, more than the event's 3"),
    ]


def test_schema_and_limit_name_a_value_once(busy_document):
    busy_document["event"]["round_minutes"] = 0
    assert refused(busy_document) == [
        ("event.round_minutes", "0 is less than the minimum of 1"),
    ]


# --- per-file totals, before the schema ---------------------------------------------------


def test_per_file_totals_refuse_before_the_schema_reads_the_file(busy_document):
    document = copy.deepcopy(busy_document)
    document["users"] = [{}] * (USERS + 1)  # rows the schema would refuse: never read
    document["registrations"] = [{}] * (REGISTRATIONS + 1)
    document["rounds"] = [{}] * (ROUNDS + 1)
    document["audit"] = [{}] * (AUDIT_ENTRIES + 1)
    assert refused(document) == [
        ("users", "1125 entries, more than the 1124 a file may have"),
        ("registrations", "1025 entries, more than the 1024 a file may have"),
        ("rounds", "39 entries, more than the 38 a file may have"),
        ("audit", "24577 entries, more than the 24576 a file may have"),
    ]


def test_matches_and_submissions_in_all_and_rows_in_all(busy_document):
    full = [{}] * REGISTRATIONS
    document = copy.deepcopy(busy_document)
    document["registrations"] = full
    document["rounds"] = [{"matches": [{}] * 512}] * 13  # each round within 1024 / 2
    assert refused(document) == [
        ("rounds", "6656 matches in all, more than the 6144 a file may have"),
    ]
    document["rounds"] = [{"matches": [{"submissions": [{}] * 20}] * 461}] * 2
    assert refused(document) == [
        ("rounds", "18440 result submissions in all, more than the 18432 a file may have"),
    ]
    # Each total within its limit, their sum beyond ROWS.
    document["users"] = [{}] * USERS
    document["rounds"] = [{"matches": [{"submissions": [{}] * 3}] * 512}] * 12
    document["audit"] = [{}] * 5000
    rows = USERS + REGISTRATIONS + 12 + 6144 + 18432 + 5000
    rows += len(document["penalties"]) + len(document["deck_checks"])
    rows += len(document["event"]["staff"])
    assert rows > ROWS
    assert refused(document) == [
        ("", f"{rows} rows in all, more than the {ROWS} a file may have"),
    ]


def test_matches_a_round_submissions_a_match_and_decklist_lines(busy_document):
    document = copy.deepcopy(busy_document)
    round_ = document["rounds"][0]
    round_["matches"] = round_["matches"] * 2  # 8 matches for 9 registrations
    match = document["rounds"][1]["matches"][0]
    match["submissions"] = match["submissions"] * 11  # 22
    assert refused(document) == [
        (
            "rounds[0].matches",
            "8 matches, more than the 5 that 9 registrations can play in a round",
        ),
        (
            "rounds[1].matches[0].submissions",
            f"22 entries, more than the {SUBMISSIONS_PER_MATCH} a file may have",
        ),
    ]
    # Lists within the length of a decklist, but lines the export and the metagame pay for.
    document = copy.deepcopy(busy_document)
    texts = ["1 a\r\n" * 4000] + ["\n" * 15_334] * 3  # 4,001 and 3 × 15,335 lines
    for row, text in zip(document["registrations"], texts, strict=False):
        row["decklist"]["text"] = text
    lines = 4001 + 3 * 15_335 + (len(document["registrations"]) - 4) * 4  # LEGAL_DECK: 4
    assert lines > DECKLIST_LINES
    assert refused(document) == [
        (
            "registrations",
            f"{lines} decklist lines in all, more than the {DECKLIST_LINES} a file may have",
        )
    ]


# --- the file's size, every way in ---------------------------------------------------------

TOO_LARGE = (
    f"the file has {FILE_BYTES + 1} bytes, more than the {FILE_BYTES} allowed "
    f"({FILE_BYTES // 2**20} MB)"
)


def test_read_document_refuses_a_file_over_the_limit_before_decoding_it():
    assert read_document(b" " * (FILE_BYTES + 1)) == (None, [Problem("", TOO_LARGE)])
    document, problems = read_document(b" " * (FILE_BYTES - 2) + b"{}")
    assert (document, problems) == ({}, [])


def test_command_refuses_a_file_over_the_limit(tmp_path):
    path = tmp_path / "event.json"
    path.write_bytes(b" " * (FILE_BYTES + 1))
    before = counts()
    with pytest.raises(CommandError) as caught:
        call_command("import_event", str(path))
    assert str(caught.value) == f"{path}: refused, nothing imported: {TOO_LARGE}"
    assert counts() == before


def test_api_refuses_a_body_or_upload_over_the_limit(organizer):
    api = api_client(organizer)
    before = counts()
    response = api.generic(
        "POST", API_IMPORT, b" " * (FILE_BYTES + 1), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "file_too_large",
        "message": f"the file is larger than {FILE_BYTES} bytes",
        "details": {"limit": FILE_BYTES},
    }
    upload = SimpleUploadedFile("event.json", b" " * (FILE_BYTES + 1), "application/json")
    response = api.post(API_IMPORT, {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert response.json()["details"] == {"problems": [{"path": "", "message": TOO_LARGE}]}
    assert counts() == before


def test_import_page_refuses_an_upload_over_the_limit(client, organizer):
    client.force_login(organizer)
    before = counts()
    upload = SimpleUploadedFile("event.json", b" " * (FILE_BYTES + 1), "application/json")
    response = client.post(PAGE_IMPORT, {"file": upload})
    assert response.status_code == 400
    assert response.context["form"].errors["file"] == ["The file is larger than 20 MB."]
    assert counts() == before


# --- the per-user quota --------------------------------------------------------------------


@override_settings(EVENT_FILE_IMPORTS_PER_DAY=2)
def test_imports_per_day_are_counted_from_the_database(small_document, organizer):
    import_event(new_uid(small_document), actor=organizer)
    outcome = import_event(new_uid(small_document), actor=organizer)
    message = (
        "you imported 2 event files in the last 24 hours, the most allowed (2); try again later"
    )
    # A replace counts too (it clears the event's audit log: the count is kept apart).
    again = copy.deepcopy(small_document)
    again["event"]["uid"] = str(outcome.event.uid)
    assert refused(again, actor=organizer) == [("", message)]
    assert refused(new_uid(small_document), actor=organizer) == [("", message)]
    # Through the API: the same problem, nothing written.
    before = counts()
    response = api_client(organizer).post(API_IMPORT, new_uid(small_document), format="json")
    assert response.status_code == 400
    assert response.json()["details"]["problems"] == [{"path": "", "message": message}]
    assert counts() == before
    # 24 hours later the first two no longer count.
    EventFileImport.objects.update(created_at=timezone.now() - dt.timedelta(hours=24, minutes=1))
    import_event(new_uid(small_document), actor=organizer)
    assert EventFileImport.objects.filter(importer=organizer).count() == 3


@override_settings(EVENT_FILE_IMPORTS_PER_DAY=1, EVENT_FILE_ACCOUNTS_PER_DAY=0)
def test_site_admins_and_the_command_have_no_quota(small_document):
    admin = UserFactory(username="site-admin", is_superuser=True, is_staff=True)
    for _ in range(2):
        import_event(new_uid(small_document), actor=admin)
        import_event(new_uid(small_document))
    # The admin's imports are recorded; the command's have no importer to record.
    assert list(EventFileImport.objects.values_list("importer__username", flat=True)) == [
        "site-admin",
        "site-admin",
    ]


def test_placeholder_accounts_per_day(small_document, organizer):
    first = import_event(new_uid(small_document), actor=organizer)
    made = len(first.users_created)
    assert made > 0
    assert EventFileImport.objects.get().accounts_created == made
    with override_settings(EVENT_FILE_ACCOUNTS_PER_DAY=2 * made - 1):
        assert refused(new_uid(small_document), actor=organizer) == [
            (
                "users",
                f"the file would make {made} new placeholder accounts; {made - 1} of the "
                f"{2 * made - 1} you may make in 24 hours are left",
            )
        ]
    with override_settings(EVENT_FILE_ACCOUNTS_PER_DAY=2 * made):
        import_event(new_uid(small_document), actor=organizer)


def test_over_the_account_quota_is_refused_before_the_file_is_validated(
    small_document, organizer, monkeypatch
):
    """A user whose accounts for the day are used up cannot make the site validate and
    check file after file: the count is read from the names first."""
    made = len(import_event(new_uid(small_document), actor=organizer).users_created)
    from tournaments.event_file import importing

    def not_reached(document):
        raise AssertionError("the file was validated")

    monkeypatch.setattr(importing, "validate", not_reached)
    with override_settings(EVENT_FILE_ACCOUNTS_PER_DAY=2 * made - 1):
        assert refused(new_uid(small_document), actor=organizer) == [
            (
                "users",
                f"the file would make {made} new placeholder accounts; {made - 1} of the "
                f"{2 * made - 1} you may make in 24 hours are left",
            )
        ]


# --- decklists checked here ----------------------------------------------------------------


def test_decklists_are_checked_here_and_the_files_reports_never_stored(
    small_document, organizer, crossover
):
    document = small_document
    document["registrations"][0]["decklist"]["text"] = ILLEGAL_DECK
    document["registrations"][0]["decklist"]["report"] = {"legal": True, "forged": "yes"}
    document["registrations"][1]["decklist"]["report"] = {"legal": False}
    outcome = import_event(document, actor=organizer)
    date = dt.date.fromisoformat(document["event"]["date"])
    stored = {
        registration.deck_text: registration.deck_report
        for registration in Registration.objects.filter(event=outcome.event)
    }
    assert stored[ILLEGAL_DECK] == check_text(ILLEGAL_DECK, crossover, date).as_dict()
    assert stored[ILLEGAL_DECK]["legal"] is False  # flagged
    assert [v["code"] for v in stored[ILLEGAL_DECK]["violations"]] == ["TOO_MANY_COPIES"]
    assert stored[LEGAL_DECK] == check_text(LEGAL_DECK, crossover, date).as_dict()
    assert stored[LEGAL_DECK]["legal"] is True


# --- only checked, legal decklists feed the metagame -----------------------------------------

# Eight legal lists (the ninth, illegal, not counted): 4 森原 さとみ (火, character),
# 4 狡猾フィーリア (no element, character), 42 スワティ (空, navigator) each.
METAGAME_CSV = [
    "Block,Name,Card name (English),Decks,Share of decks (%),Copies,Share of copies (%),"
    "Average copies",
    "element,Sky (空),,8,100.0,336,84.0,",
    "element,Fire (火),,8,100.0,32,8.0,",
    "elements of a deck,Fire (火) + Sky (空),,8,100.0,,,",
    "card type,Navigator,,8,100.0,336,84.0,",
    "card type,Character,,8,100.0,64,16.0,",
    "card (deck),スワティ,,8,100.0,336,,42.00",
    "card (deck),森原 さとみ,,8,100.0,32,,4.00",
    "card (deck),狡猾フィーリア,,8,100.0,32,,4.00",
    "",
]


def csv_lines(response) -> list[str]:
    assert response.status_code == 200
    return response.content.decode("utf-8-sig").split("\r\n")


def test_metagame_counts_only_decklists_checked_here_and_legal(
    small_document, organizer, crossover
):
    document = small_document
    document["event"]["decklists_public_from"] = "2026-01-01T00:00:00+00:00"
    document["registrations"][0]["decklist"]["text"] = ILLEGAL_DECK
    document["registrations"][0]["decklist"]["report"] = {"legal": True}
    event = import_event(document, actor=organizer).event
    anyone = client_for()
    event_csv = f"/events/{event.pk}/metagame.csv"
    format_csv = f"/decks/formats/{crossover.slug}/metagame.csv"
    assert csv_lines(anyone.get(event_csv)) == METAGAME_CSV
    assert csv_lines(anyone.get(format_csv)) == METAGAME_CSV
    # A list without this site's report (as a file's reports were kept) is not counted.
    registration = Registration.objects.filter(event=event, deck_text=LEGAL_DECK).first()
    Registration.objects.filter(pk=registration.pk).update(deck_report=None)
    cache.clear()
    assert csv_lines(anyone.get(event_csv))[1] == "element,Sky (空),,7,100.0,294,84.0,"
    assert csv_lines(anyone.get(format_csv))[1] == "element,Sky (空),,7,100.0,294,84.0,"


def test_migration_checks_the_decklists_imported_before(small_document, organizer, crossover):
    """Registrations imported before the fix kept the file's report: the migration
    replaces each with this site's, and leaves events that were not imported alone."""
    document = small_document
    document["registrations"][0]["decklist"]["text"] = ILLEGAL_DECK
    event = import_event(document, actor=organizer).event
    Registration.objects.filter(event=event).update(deck_report={"legal": True, "forged": 1})
    native = Registration.objects.exclude(event=event).first()
    Registration.objects.filter(pk=native.pk).update(deck_report={"legal": True, "kept": 1})
    migration = importlib.import_module(
        "tournaments.migrations.0016_eventfileimport_checked_decklists"
    )
    migration.check_imported_decklists(apps, None)
    date = event.date
    for registration in Registration.objects.filter(event=event):
        assert (
            registration.deck_report
            == check_text(registration.deck_text, crossover, date).as_dict()
        )
    assert Registration.objects.filter(event=event, deck_report__legal=True).count() == 8
    assert Registration.objects.get(pk=native.pk).deck_report == {"legal": True, "kept": 1}


# --- an API body too large to read: the API's JSON error ------------------------------------

TOO_LARGE_BODY = {
    "code": "request_too_large",
    "message": "the request body is larger than 1024 bytes",
    "details": {"limit": 1024},
}


def _api_paths() -> list[str]:
    """Every route under api/v1/ with each id given as 1 (format suffixes left out)."""
    routes = []

    def walk(patterns, prefix):
        for entry in patterns:
            pattern = prefix + str(entry.pattern.regex.pattern).lstrip("^").rstrip("$")
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, pattern)
            elif isinstance(entry, URLPattern):
                routes.append(pattern)

    walk(get_resolver().url_patterns, "")
    paths = set()
    for route in routes:
        if not route.startswith("api/v1/") or "(?P<format>" in route:
            continue
        path = re.sub(r"\(\?P<\w+>[^)]*\)", "1", route)
        paths.add("/" + path.replace("\\.", ".").replace("\\Z", "").replace("/?", "/"))
    return sorted(paths)


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_a_json_body_too_large_is_the_apis_json_error(organizer):
    body = json.dumps({"text": "x" * 2048})
    anonymous = APIClient()
    response = anonymous.generic("POST", "/api/v1/decks/check/", body, "application/json")
    assert (response.status_code, response.json()) == (413, TOO_LARGE_BODY)
    api = api_client(organizer)
    for path in (API_IMPORT, "/api/v1/decks/", "/api/v1/events/"):
        response = api.generic("POST", path, body, "application/json")
        assert (response.status_code, response.json()) == (413, TOO_LARGE_BODY), path


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_no_api_route_answers_a_body_too_large_with_html(client, organizer):
    paths = _api_paths()
    assert "/api/v1/event-files/" in paths
    assert "/api/v1/events/1/registrations/1/penalty/" in paths
    client.force_login(organizer)
    client.raise_request_exception = False
    body = json.dumps({"text": "x" * 2048})
    too_large = 0
    for path in paths:
        for method in ("post", "put", "patch"):
            response = getattr(client, method)(path, body, content_type="application/json")
            assert response["Content-Type"].startswith("application/json"), (method, path)
            if response.status_code >= 400:
                assert set(response.json()) == {"code", "message", "details"}, (method, path)
            if response.status_code == 413:
                assert response.json() == TOO_LARGE_BODY
                too_large += 1
    assert too_large >= 4


def test_a_request_django_refuses_before_the_api_view_is_json_too(client, db):
    # More form fields than DATA_UPLOAD_MAX_NUMBER_FIELDS: refused while the middleware
    # reads the body, before any API view.
    client.raise_request_exception = False
    body = "&".join(f"f{n}=1" for n in range(1001))
    response = client.post(
        "/api/v1/decks/check/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert response.json() == {"code": "bad_request", "message": "bad request", "details": {}}
    page = client.post("/decks/check/", body, content_type="application/x-www-form-urlencoded")
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")


def test_schema_documents_413_for_every_operation_with_a_body(client, db):
    schema = client.get("/api/schema/?format=json").json()
    with_body = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                with_body += 1
                assert "413" in operation["responses"], (method, path)
    assert with_body > 20
