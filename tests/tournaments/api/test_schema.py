"""The OpenAPI schema lists every tournament endpoint with its error responses, a summary
for each new one, and generates without a warning."""

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

from tournaments.services.events import SETTINGS

OPERATIONS = {
    ("/api/v1/events/", "get"): {"200"},
    ("/api/v1/events/{id}/", "get"): {"200", "404"},
    ("/api/v1/events/{id}/standings/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/registrations/", "get"): {"200"},
    ("/api/v1/events/{event_pk}/rounds/", "get"): {"200"},
    ("/api/v1/events/{event_pk}/rounds/{number}/pairings/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/matches/{id}/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/penalties/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/penalties/{id}/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/decklists/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/decklists/{id}/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/staff/", "get"): {"200", "403", "404"},
    ("/api/v1/events/{event_pk}/audit/", "get"): {"200", "403", "404"},
    ("/api/v1/events/{event_pk}/deck-checks/", "get"): {"200", "403", "404"},
    ("/api/v1/events/{event_pk}/deck-checks/{id}/", "get"): {"200", "403", "404"},
    ("/api/v1/events/{event_pk}/event-file/", "get"): {"200", "403", "404"},
}
COMMANDS = [
    "/api/v1/events/{id}/register/",
    "/api/v1/events/{id}/generate-round/",
    "/api/v1/events/{event_pk}/rounds/{number}/publish/",
    "/api/v1/events/{event_pk}/registrations/{id}/decklist/",
    "/api/v1/events/{event_pk}/registrations/{id}/drop/",
    "/api/v1/events/{event_pk}/registrations/{id}/penalty/",
    "/api/v1/events/{event_pk}/matches/{id}/report/",
    "/api/v1/events/{event_pk}/matches/{id}/confirm/",
    "/api/v1/events/{event_pk}/matches/{id}/dispute/",
    "/api/v1/events/{event_pk}/matches/{id}/override/",
]
NEW_COMMANDS = [
    ("/api/v1/events/", "post", "EventCreateInput"),
    ("/api/v1/events/{id}/", "patch", "PatchedEventUpdateInput"),
    ("/api/v1/events/{id}/open-registration/", "post", None),
    ("/api/v1/events/{id}/start/", "post", None),
    ("/api/v1/events/{id}/finish/", "post", None),
    ("/api/v1/events/{id}/late-entry/", "post", "LateEntryInput"),
    ("/api/v1/events/{id}/top-cut/", "post", None),
    ("/api/v1/events/{id}/advance-bracket/", "post", None),
    ("/api/v1/events/{event_pk}/staff/", "post", "StaffInput"),
    ("/api/v1/events/{event_pk}/registrations/{id}/reenter/", "post", "ReasonInput"),
    ("/api/v1/events/{event_pk}/rounds/{number}/start-clock/", "post", None),
    ("/api/v1/events/{event_pk}/rounds/{number}/close/", "post", None),
    ("/api/v1/events/{event_pk}/rounds/{number}/repair/", "post", "ReasonInput"),
    ("/api/v1/events/{event_pk}/rounds/{number}/edit-pairing/", "post", "EditPairingInput"),
    ("/api/v1/events/{event_pk}/deck-checks/", "post", "DeckCheckInput"),
    ("/api/v1/events/{event_pk}/deck-checks/{id}/penalty/", "post", "DeckCheckPenaltyInput"),
]
NEW_READS = [
    ("/api/v1/events/{event_pk}/staff/", "get"),
    ("/api/v1/events/{event_pk}/staff/{id}/", "delete"),
    ("/api/v1/events/{event_pk}/penalties/", "get"),
    ("/api/v1/events/{event_pk}/penalties/{id}/", "get"),
    ("/api/v1/events/{event_pk}/decklists/", "get"),
    ("/api/v1/events/{event_pk}/decklists/{id}/", "get"),
    ("/api/v1/events/{event_pk}/audit/", "get"),
    ("/api/v1/events/{event_pk}/deck-checks/", "get"),
    ("/api/v1/events/{event_pk}/deck-checks/{id}/", "get"),
]
ERROR_REF = "#/components/schemas/Error"


@pytest.fixture
def schema(db, client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def test_read_endpoints_listed(schema):
    for (path, method), codes in OPERATIONS.items():
        responses = schema["paths"][path][method]["responses"]
        assert codes <= set(responses), (path, set(responses))


def test_commands_document_their_errors(schema):
    error_ref = "#/components/schemas/Error"
    for path in COMMANDS:
        operation = schema["paths"][path]["post"]
        responses = operation["responses"]
        assert {"400", "403", "404", "409"} <= set(responses), path
        assert set(responses) & {"200", "201"}, path
        for code in ("400", "403", "404", "409"):
            content = responses[code]["content"]["application/json"]["schema"]
            assert content == {"$ref": error_ref}, (path, code)
    assert set(schema["components"]["schemas"]["Error"]["properties"]) == {
        "code",
        "message",
        "details",
    }
    report = schema["paths"]["/api/v1/events/{event_pk}/matches/{id}/report/"]["post"]
    body = report["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert body.endswith("/ReportInput")


def test_new_commands_document_request_response_and_errors(schema):
    for path, method, body in NEW_COMMANDS:
        operation = schema["paths"][path][method]
        assert operation["summary"], path
        assert operation["description"], path
        responses = operation["responses"]
        expected = {"400", "403"} if path == "/api/v1/events/" else {"400", "403", "404", "409"}
        assert expected <= set(responses), (path, set(responses))
        for code in expected:
            content = responses[code]["content"]["application/json"]["schema"]
            assert content == {"$ref": ERROR_REF}, (path, code)
        [success] = set(responses) & {"200", "201"}
        assert responses[success]["content"]["application/json"]["schema"]["$ref"], path
        if body is None:
            assert "requestBody" not in operation, path
        else:
            request = operation["requestBody"]["content"]["application/json"]["schema"]
            assert request == {"$ref": f"#/components/schemas/{body}"}, path


def test_new_reads_document_summary_and_errors(schema):
    for path, method in NEW_READS:
        operation = schema["paths"][path][method]
        assert operation["summary"], path
        assert operation["description"], path
        assert "404" in operation["responses"], path
    assert "204" in schema["paths"]["/api/v1/events/{event_pk}/staff/{id}/"]["delete"]["responses"]
    audit = schema["paths"]["/api/v1/events/{event_pk}/audit/"]["get"]
    assert "action" in {p["name"] for p in audit["parameters"]}
    assert "403" in audit["responses"]


def test_event_file_import_documents_both_answers_and_the_problems(schema):
    operation = schema["paths"]["/api/v1/event-files/"]["post"]
    assert operation["summary"] == "Import an event file"
    assert "details.problems" in operation["description"]
    responses = operation["responses"]
    assert {"200", "201", "400", "403"} <= set(responses)
    for code in ("400", "403"):
        content = responses[code]["content"]["application/json"]["schema"]
        assert content == {"$ref": ERROR_REF}, code
    result = responses["201"]["content"]["application/json"]["schema"]
    assert result == {"$ref": "#/components/schemas/ImportResult"}
    download = schema["paths"]["/api/v1/events/{event_pk}/event-file/"]["get"]
    assert "private" in {p["name"] for p in download["parameters"]}


def test_create_input_lists_every_setting(schema):
    create = schema["components"]["schemas"]["EventCreateInput"]
    assert set(create["properties"]) == set(SETTINGS)
    assert set(create["required"]) == {"name", "format", "date", "capacity"}
    update = schema["components"]["schemas"]["PatchedEventUpdateInput"]
    assert set(update["properties"]) == {*SETTINGS, "reason"}
    assert "required" not in update


def test_schema_generates_without_warnings(db):
    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence():
        schema = SchemaGenerator().get_schema(request=None, public=True)
    warnings = dict(GENERATOR_STATS._warn_cache)
    errors = dict(GENERATOR_STATS._error_cache)
    GENERATOR_STATS.reset()
    assert warnings == {}
    assert errors == {}
    validate_schema(schema)


def test_nullable_and_blank_fields_are_documented(schema):
    components = schema["components"]["schemas"]
    for component, field in [
        ("Penalty", "round"),
        ("Penalty", "infraction_code"),
        ("DeckCheck", "round"),
        ("DeckEntry", "printing_set"),
        ("Section", "parent"),
    ]:
        prop = components[component]["properties"][field]
        assert prop.get("nullable") is True, (component, field, prop)
    outcome = components["Match"]["properties"]["outcome"]
    assert outcome["oneOf"] == [
        {"$ref": "#/components/schemas/OutcomeEnum"},
        {"$ref": "#/components/schemas/BlankEnum"},
    ]
    # One string schema for a card's cost: "" matched both branches of the old oneOf.
    cost = components["Card"]["properties"]["cost"]
    assert cost["type"] == "string"
    assert "oneOf" not in cost


def test_search_and_json_export_document_what_they_answer(schema):
    search = schema["paths"]["/api/v1/rules/search/"]["get"]["responses"]["200"]
    assert search["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SearchResponse"
    }
    for path in ("/api/v1/events/{event_pk}/export/", "/api/v1/export-jobs/{id}/download/"):
        content = schema["paths"][path]["get"]["responses"]["200"]["content"]
        assert content["application/json"]["schema"]["type"] == "array", path
        assert content["text/csv"]["schema"] == {"type": "string", "format": "binary"}, path


def test_every_operation_documents_the_errors_any_request_may_get(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            # Any request may carry a bad token.
            assert "401" in responses, (method, path)
            if "{" in path:
                assert "404" in responses, (method, path)
            if "requestBody" in operation:
                assert {"400", "415"} <= set(responses), (method, path)
            if method != "get" or path.startswith("/api/v1/events/"):
                assert "403" in responses, (method, path)
            for code, response in responses.items():
                if code >= "400":
                    content = response["content"]["application/json"]["schema"]
                    assert content == {"$ref": ERROR_REF}, (method, path, code)
    cards = schema["paths"]["/api/v1/cards/{id}/"]["get"]["responses"]
    assert "403" not in cards  # public, outside the events: no token limit applies
