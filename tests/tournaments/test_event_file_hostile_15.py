"""Hostile event files (issue #15): NUL (U+0000) anywhere in an uploaded event file, a
character that changes the text direction in the event's or a user's name, and a number
JSON does not have (NaN, Infinity, -Infinity) or too long to read (more than 4300 digits:
it was a ValueError, a 500 or a traceback).

Every way in (the import page, the API's multipart upload and JSON body, ``manage.py
import_event``) refuses the file with the JSON path (or, for a raw NUL byte, the line and
column) of each problem and writes nothing, the same on SQLite and PostgreSQL (which
cannot store NUL in text or jsonb: it was a 500 there, a stored NUL on SQLite).
"""

from __future__ import annotations

import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation
from rest_framework.test import APIClient

from config.nul import nul_paths
from tournaments.event_file import (
    EventFileRejected,
    export_event,
    import_event,
    nul_problems,
    read_document,
)
from tournaments.event_file.reading import NUL_PROBLEMS_LISTED
from tournaments.models import (
    AuditEntry,
    Event,
    EventStaff,
    Registration,
    Round,
)

from .factories import register_all

pytestmark = pytest.mark.django_db

IMPORT_URL = "/events/import/"
API_IMPORT = "/api/v1/event-files/"
NUL_MESSAGE = "contains a NUL character (U+0000), which cannot be stored."
RLO, LRI = "\u202e", "\u2066"


def bidi_message(code: str) -> str:
    return f"contains a character that changes the text direction ({code}); remove it."


def counts() -> dict:
    return {
        "events": Event.objects.count(),
        "staff": EventStaff.objects.count(),
        "registrations": Registration.objects.count(),
        "rounds": Round.objects.count(),
        "users": get_user_model().objects.count(),
        "audit": AuditEntry.objects.count(),
    }


def upload(raw: bytes, name: str = "event-1.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, raw, content_type="application/json")


def encoded(document: dict) -> bytes:
    # json.dumps writes NUL as the escape \u0000: the only way JSON can hold it.
    return json.dumps(document, ensure_ascii=False).encode()


def api_client(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.fixture
def document(staffed_event, make_players):
    """A valid event file of a new event (a fresh uid), four players registered: only
    what a test puts into it makes it hostile."""
    register_all(staffed_event, make_players(4))
    data = export_event(staffed_event)
    data["event"]["uid"] = str(uuid.uuid4())
    return data


def user_index(document: dict, username: str) -> int:
    return next(i for i, row in enumerate(document["users"]) if row["username"] == username)


def with_nul(document: dict) -> tuple[dict, list[dict]]:
    """``document`` with NUL in a text, a user's name, a key of a jsonb value and a
    registration's decklist text; and the problems expected, in document order."""
    player = user_index(document, "player002")
    document["event"]["name"] = "Spring\x00Cup"
    document["users"][player]["display_name"] = "pl\x00ayer"
    document["registrations"][1]["decklist"] = {"text": "3 スワティ\x00"}
    document["audit"][0]["after"] = {"no\x00te": "x"}
    problems = [
        {"path": "event.name", "message": NUL_MESSAGE},
        {"path": f"users[{player}].display_name", "message": NUL_MESSAGE},
        {"path": "registrations[1].decklist.text", "message": NUL_MESSAGE},
        {"path": "audit[0].after.no\\u0000te", "message": NUL_MESSAGE},
    ]
    return document, problems


def problems_of(response) -> list[dict]:
    return [{"path": p.path, "message": p.message} for p in response.context["problems"]]


# --- NUL: the page --------------------------------------------------------------------------


def test_page_refuses_nul_with_every_json_path_and_writes_nothing(client, document, outsider):
    document, expected = with_nul(document)
    before = counts()
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(encoded(document))})
    assert response.status_code == 400
    assert problems_of(response) == expected
    page = response.content.decode()
    assert "<code>users[" in page
    assert "\x00" not in page
    assert counts() == before


def test_page_refuses_a_raw_nul_byte_with_its_line_and_column(client, document, outsider):
    raw = json.dumps(document, indent=1).encode()
    line_start = raw.index(b'\n  "name"') + 1
    raw = raw[:line_start] + b"  \x00" + raw[line_start + 2 :]
    line = raw[:line_start].count(b"\n") + 1
    before = counts()
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(raw)})
    assert response.status_code == 400
    assert problems_of(response) == [
        {
            "path": "",
            "message": f"line {line}, column 3: contains a NUL character (U+0000), "
            "which cannot be stored.",
        }
    ]
    assert counts() == before


def test_page_refuses_nul_in_japanese(client, document, outsider):
    document["event"]["name"] = "\x00"
    client.force_login(outsider)
    response = client.post(
        IMPORT_URL, {"file": upload(encoded(document))}, HTTP_ACCEPT_LANGUAGE="ja"
    )
    assert response.status_code == 400
    assert problems_of(response) == [
        {
            "path": "event.name",
            "message": "NUL文字（U+0000）が含まれています。保存できません。",
        }
    ]


def test_replacing_an_event_with_a_nul_file_leaves_it_as_it_was(client, staffed_event, organizer):
    document = export_event(staffed_event)
    document["event"]["name"] = "Renamed\x00"
    document["event"]["staff"] = []
    client.force_login(organizer)
    before = counts()
    response = client.post(IMPORT_URL, {"file": upload(encoded(document))})
    assert response.status_code == 400
    assert problems_of(response) == [{"path": "event.name", "message": NUL_MESSAGE}]
    assert counts() == before
    staffed_event.refresh_from_db()
    assert "\x00" not in staffed_event.name
    assert EventStaff.objects.filter(event=staffed_event).count() == 2


# --- NUL: the API ---------------------------------------------------------------------------


def test_api_multipart_refuses_nul_with_every_json_path(document, outsider):
    document, expected = with_nul(document)
    before = counts()
    response = api_client(outsider).post(
        API_IMPORT, {"file": upload(encoded(document))}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "event_file_rejected",
        "message": "the event file was refused: 4 problem(s); nothing was written",
        "details": {"problems": expected},
    }
    assert counts() == before


def test_api_multipart_refuses_a_raw_nul_byte(document, outsider):
    raw = b"\x00" + encoded(document)
    before = counts()
    response = api_client(outsider).post(API_IMPORT, {"file": upload(raw)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["details"]["problems"] == [
        {
            "path": "",
            "message": "line 1, column 1: contains a NUL character (U+0000), which cannot "
            "be stored.",
        }
    ]
    assert counts() == before


def test_api_json_body_nul_is_refused_by_the_middleware_with_the_field(document, outsider):
    document, _ = with_nul(document)
    before = counts()
    response = api_client(outsider).post(API_IMPORT, document, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_input",
        "message": "event.name contains a NUL character (U+0000), which is not allowed",
        "details": {"field": "event.name"},
    }
    assert counts() == before


def test_import_event_refuses_nul_whichever_caller(document):
    """The one check every caller reaches (a JSON body the middleware let through, say)."""
    document, expected = with_nul(document)
    before = counts()
    with pytest.raises(EventFileRejected) as refused:
        import_event(document)
    assert [{"path": p.path, "message": p.message} for p in refused.value.problems] == expected
    assert counts() == before


# --- NUL: the command -----------------------------------------------------------------------


def test_command_refuses_nul_with_its_paths_and_writes_nothing(tmp_path, document):
    document, expected = with_nul(document)
    path = tmp_path / "event.json"
    path.write_bytes(encoded(document))
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command("import_event", str(path))
    assert str(refused.value).splitlines() == [
        f"{path}: refused, nothing imported (4 problems):",
        *(f"  {p['path']}: {p['message']}" for p in expected),
    ]
    assert counts() == before


def test_command_refuses_a_raw_nul_byte_with_its_line(tmp_path, document):
    path = tmp_path / "event.json"
    path.write_bytes(b'{\n"schema": "\x00"}')
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command("import_event", str(path))
    assert str(refused.value) == (
        f"{path}: not valid JSON: line 2, column 12: contains a NUL character (U+0000), "
        "which cannot be stored."
    )
    assert counts() == before


# --- NUL: the reading helpers ---------------------------------------------------------------


def test_many_nuls_are_listed_up_to_the_limit_then_counted():
    extra = 7
    problems = nul_problems({"rows": ["\x00"] * (NUL_PROBLEMS_LISTED + extra)})
    assert len(problems) == NUL_PROBLEMS_LISTED + 1
    assert problems[0].path == "rows[0]"
    assert problems[NUL_PROBLEMS_LISTED - 1].path == f"rows[{NUL_PROBLEMS_LISTED - 1}]"
    assert str(problems[-1]) == f"{extra} more places hold a NUL character (U+0000)."
    assert str(nul_problems(["\x00"] * (NUL_PROBLEMS_LISTED + 1))[-1]) == (
        "1 more place holds a NUL character (U+0000)."
    )


def test_nul_paths_are_in_document_order_keys_included():
    value = {"a": [1, "x", {"b\x00": None, "c": "\x00"}], "d\x00": {"e": "\x00"}, "f": "\x00"}
    assert list(nul_paths(value)) == [
        ("a", 2, "b\x00"),
        ("a", 2, "c"),
        ("d\x00",),
        ("f",),
    ]
    assert list(nul_paths("\x00")) == [()]
    assert list(nul_paths({"a": ["b", 1, None, True]})) == []


def test_read_document_reads_utf8_json_and_names_what_stops_it():
    assert read_document('\ufeff{"a": "\\u0000"}'.encode()) == ({"a": "\x00"}, [])
    _, [problem] = read_document(b'{"a": \xff}')
    assert str(problem) == "the file is not UTF-8 text (byte 6)."
    _, [problem] = read_document(b"[" * 100_000)
    assert str(problem) == "not JSON: nested too deeply"
    _, [problem] = read_document(b"\n\n  x\x00")
    assert str(problem) == (
        "line 3, column 4: contains a NUL character (U+0000), which cannot be stored."
    )


def test_nul_problems_of_a_clean_document_are_none(document):
    assert nul_problems(document) == []


# --- names that change the text direction -------------------------------------------------


def test_page_refuses_bidi_controls_in_the_event_and_player_names(client, document, outsider):
    player = user_index(document, "player003")
    document["event"]["name"] = f"Cup{RLO}gnp.exe"
    document["users"][player]["display_name"] = f"{LRI}Alice"
    document["users"][player]["last_name"] = f"Smith{RLO}"
    before = counts()
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(encoded(document))})
    assert response.status_code == 400
    assert problems_of(response) == [
        {"path": "event.name", "message": bidi_message("U+202E")},
        {"path": f"users[{player}].display_name", "message": bidi_message("U+2066")},
        {"path": f"users[{player}].last_name", "message": bidi_message("U+202E")},
    ]
    assert counts() == before


def test_api_refuses_a_bidi_control_in_a_new_players_username(document, outsider):
    """A username the site does not have (its account would be created) and every place
    the file names it: only the users row is the name's own place."""
    player = user_index(document, "player004")
    document["users"][player]["username"] = f"player{RLO}004"
    before = counts()
    response = api_client(outsider).post(API_IMPORT, document, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "event_file_rejected"
    assert body["details"]["problems"][0] == {
        "path": f"users[{player}].username",
        "message": bidi_message("U+202E"),
    }
    assert counts() == before


def test_command_refuses_a_bidi_control_in_the_event_name(tmp_path, document):
    document["event"]["name"] = "\u202bCup"
    path = tmp_path / "event.json"
    path.write_bytes(encoded(document))
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command("import_event", str(path))
    assert str(refused.value).splitlines() == [
        f"{path}: refused, nothing imported (1 problems):",
        f"  event.name: {bidi_message('U+202B')}",
    ]
    assert counts() == before


def test_bidi_refusal_in_japanese(document):
    document["event"]["name"] = f"{RLO}Cup"
    with translation.override("ja"), pytest.raises(EventFileRejected) as refused:
        import_event(document)
    [problem] = refused.value.problems
    assert problem.path == "event.name"
    assert (
        problem.message == "文字の向きを変える文字（U+202E）が含まれています。取り除いてください。"
    )


def test_names_without_direction_controls_import(document, outsider):
    """Marks that only hint a direction (U+200E, U+200F) and Japanese or Arabic names are
    not refused: the web forms accept them too."""
    player = user_index(document, "player001")
    document["event"]["name"] = "春の大会\u200e"
    document["users"][player]["display_name"] = "سارة"
    response = api_client(outsider).post(API_IMPORT, document, format="json")
    assert response.status_code == 201
    assert Event.objects.get(uid=document["event"]["uid"]).name == "春の大会\u200e"


# --- numbers JSON does not have, or too long to read ---------------------------------------

HUGE = "9" * 5000
HUGE_MESSAGE = "not JSON: the number 99999999999999999999… has 5000 digits, more than 4300"


def with_number(document: dict, number: str) -> bytes:
    """``document`` as a file with one more key holding ``number`` as written."""
    return encoded(document)[:-1] + b', "extra": ' + number.encode() + b"}"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (HUGE, HUGE_MESSAGE),
        (
            "[-" + "1" * 4301 + "]",
            "not JSON: the number -1111111111111111111… has 4301 digits, more than 4300",
        ),
        ('{"a": NaN}', "not JSON: NaN is not a number JSON allows (no NaN, Infinity or -Infinity)"),
        (
            "[Infinity]",
            "not JSON: Infinity is not a number JSON allows (no NaN, Infinity or -Infinity)",
        ),
        (
            "[1, -Infinity]",
            "not JSON: -Infinity is not a number JSON allows (no NaN, Infinity or -Infinity)",
        ),
        ("[1e400]", "not JSON: the number 1e400 is too large"),
    ],
    ids=["huge", "huge-negative", "nan", "infinity", "minus-infinity", "float-overflow"],
)
def test_read_document_refuses_numbers_json_has_not(raw, message):
    assert [str(p) for p in read_document(raw.encode())[1]] == [message]


def test_read_document_reads_numbers_json_has():
    assert read_document(("[-" + "9" * 4300 + ", 1.5, -0, 1e308]").encode()) == (
        [-int("9" * 4300), 1.5, 0, 1e308],
        [],
    )


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (HUGE, HUGE_MESSAGE),
        ("NaN", "not JSON: NaN is not a number JSON allows (no NaN, Infinity or -Infinity)"),
    ],
    ids=["huge", "nan"],
)
def test_page_refuses_a_number_json_has_not(client, document, outsider, number, message):
    before = counts()
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(with_number(document, number))})
    assert response.status_code == 400
    assert problems_of(response) == [{"path": "", "message": message}]
    assert counts() == before


def test_page_refuses_a_huge_number_in_japanese(client, document, outsider):
    client.force_login(outsider)
    response = client.post(
        IMPORT_URL,
        {"file": upload(with_number(document, "-Infinity"))},
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    assert response.status_code == 400
    assert problems_of(response) == [
        {
            "path": "",
            "message": "JSONではありません：-InfinityはJSONで使える数ではありません"
            "（NaN、Infinity、-Infinityは使えません）",
        }
    ]
    with translation.override("ja"):
        _, [problem] = read_document(HUGE.encode())
    assert str(problem) == (
        "JSONではありません：数 99999999999999999999… は5000桁あり、上限の4300桁を超えています"
    )


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (HUGE, HUGE_MESSAGE),
        (
            "Infinity",
            "not JSON: Infinity is not a number JSON allows (no NaN, Infinity or -Infinity)",
        ),
    ],
    ids=["huge", "infinity"],
)
def test_api_multipart_refuses_a_number_json_has_not(document, outsider, number, message):
    before = counts()
    response = api_client(outsider).post(
        API_IMPORT, {"file": upload(with_number(document, number))}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "event_file_rejected",
        "message": "the event file was refused: 1 problem(s); nothing was written",
        "details": {"problems": [{"path": "", "message": message}]},
    }
    assert counts() == before


@pytest.mark.parametrize("number", [HUGE, "NaN"], ids=["huge", "nan"])
def test_api_json_body_refuses_a_number_json_has_not(document, outsider, number):
    """A JSON body is read by the API's parser: the one 400 of a body that is not JSON."""
    before = counts()
    response = api_client(outsider).generic(
        "POST", API_IMPORT, with_number(document, number), content_type="application/json"
    )
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["details"]) == ("parse_error", {})
    assert counts() == before


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (HUGE, HUGE_MESSAGE),
        ("NaN", "not JSON: NaN is not a number JSON allows (no NaN, Infinity or -Infinity)"),
    ],
    ids=["huge", "nan"],
)
def test_command_refuses_a_number_json_has_not(tmp_path, document, number, message):
    path = tmp_path / "event.json"
    path.write_bytes(with_number(document, number))
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command("import_event", str(path))
    assert str(refused.value) == f"{path}: not valid JSON: {message}"
    assert counts() == before
