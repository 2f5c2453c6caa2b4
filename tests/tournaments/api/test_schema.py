"""The OpenAPI schema lists every tournament endpoint with its error responses."""

import pytest

OPERATIONS = {
    ("/api/v1/events/", "get"): {"200"},
    ("/api/v1/events/{id}/", "get"): {"200", "404"},
    ("/api/v1/events/{id}/standings/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/registrations/", "get"): {"200"},
    ("/api/v1/events/{event_pk}/rounds/", "get"): {"200"},
    ("/api/v1/events/{event_pk}/rounds/{number}/pairings/", "get"): {"200", "404"},
    ("/api/v1/events/{event_pk}/matches/{id}/", "get"): {"200", "404"},
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
