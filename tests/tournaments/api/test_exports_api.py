"""The export API: files, the 202 job path, errors in the API's shape, the schema."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.tournaments.factories import new_event
from tests.tournaments.test_exports import (
    HOSTILE_NAMES,
    PAIRINGS_CSV,
    STANDINGS_CSV,
    STANDINGS_JSON,
    XLSX_TYPE,
    build_tiny_event,
    read_xlsx,
)
from tournaments import services
from tournaments.models import ExportJob

from .helpers import API, error_of

pytestmark = pytest.mark.django_db

JOBS = "/api/v1/export-jobs"


@pytest.fixture
def tiny(organizer, crossover):
    return build_tiny_event(organizer, crossover)


@pytest.fixture
def small_limit(settings):
    settings.EXPORT_SYNC_LIMIT = 2
    return settings


def export(client, event, query: str):
    return client.get(f"{API}/{event.pk}/export/?{query}")


def test_standings_csv_json_xlsx(tiny, client_for):
    client = client_for()
    response = export(client, tiny.event, "kind=standings&format=csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-standings.csv"'
    )
    assert response.content == STANDINGS_CSV.encode()
    response = export(client, tiny.event, "kind=standings&format=json")
    assert response["Content-Type"] == "application/json"
    assert response.content == STANDINGS_JSON.encode()
    response = export(client, tiny.event, "kind=standings&format=xlsx")
    assert response["Content-Type"] == XLSX_TYPE
    assert read_xlsx(response.content).rows[4][3] == "'" + HOSTILE_NAMES[0]  # Player column


def test_pairings_needs_a_round(tiny, client_for):
    client = client_for()
    response = export(client, tiny.event, "kind=pairings&format=csv&round=1")
    assert response.status_code == 200
    assert response.content == PAIRINGS_CSV.encode()
    response = export(client, tiny.event, "kind=pairings&format=csv")
    assert error_of(response) == (400, "invalid_input")
    assert response.json()["details"] == {"fields": {"round": ["required for pairings"]}}
    assert error_of(export(client, tiny.event, "kind=pairings&format=csv&round=7")) == (
        404,
        "not_found",
    )


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("format=csv", "kind"),
        ("kind=players&format=csv", "kind"),
        ("kind=standings", "format"),
        ("kind=standings&format=pdf", "format"),
        ("kind=pairings&format=csv&round=0", "round"),
        ("kind=pairings&format=csv&round=x", "round"),
    ],
)
def test_bad_query_names_the_field(tiny, client_for, query, field):
    response = export(client_for(), tiny.event, query)
    assert error_of(response) == (400, "invalid_input")
    assert list(response.json()["details"]["fields"]) == [field]


def test_draft_event_is_404(organizer, crossover, outsider, client_for):
    event = new_event(organizer, crossover, name="Secret")
    for user in (None, outsider):
        for kind in ("kind=standings", "kind=decklists", "kind=pairings&round=1"):
            response = export(client_for(user), event, kind + "&format=json")
            assert error_of(response) == (404, "not_found")
    response = export(client_for(organizer), event, "kind=standings&format=json")
    assert response.status_code == 200
    assert response.json() == []


def test_decklists_follow_the_policy(tiny, client_for, outsider):
    def players(user):
        response = export(client_for(user), tiny.event, "kind=decklists&format=json")
        assert response.status_code == 200
        return [entry["player"] for entry in json.loads(response.content)]

    assert players(None) == []
    assert players(outsider) == []
    assert players(tiny.players[2]) == ["-x"]
    assert players(tiny.event.organizer) == HOSTILE_NAMES


def test_large_export_answers_202_with_a_job(
    tiny, client_for, outsider, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(outsider)
    with django_capture_on_commit_callbacks(execute=True):
        response = export(client, tiny.event, "kind=standings&format=csv")
    assert response.status_code == 202
    job = ExportJob.objects.get()
    body = response.json()
    url = f"http://testserver{JOBS}/{job.pk}/"
    assert response["Location"] == url
    assert body["url"] == url
    assert body["id"] == job.pk
    assert (body["kind"], body["format"], body["round"], body["event"]) == (
        "standings",
        "csv",
        None,
        tiny.event.pk,
    )
    # The test's transaction commits (and so runs the eager task) after the answer.
    assert body["status"] == "pending"
    body = client.get(f"{JOBS}/{job.pk}/").json()
    assert body["status"] == "done"
    assert (body["done"], body["total"], body["percent"]) == (5, 5, 100)
    assert body["progress"] == "5 of 5 done"
    assert body["filename"] == f"event-{tiny.event.pk}-standings.csv"
    assert body["download_url"] == f"http://testserver{JOBS}/{job.pk}/download/"
    assert body["finished_at"] is not None
    download = client.get(body["download_url"])
    assert download.status_code == 200
    assert download["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-standings.csv"'
    )
    assert download.content == STANDINGS_CSV.encode()


def test_job_not_finished_yet(
    tiny, client_for, outsider, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(outsider)
    with django_capture_on_commit_callbacks(execute=False):
        response = export(client, tiny.event, "kind=pairings&format=xlsx&round=1")
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["done"], body["total"], body["round"]) == ("pending", 0, 3, 1)
    assert body["download_url"] is None
    response = client.get(f"{JOBS}/{body['id']}/download/")
    assert error_of(response) == (409, "export_not_ready")
    assert response.json()["details"] == {"status": "pending"}


def test_job_of_another_user_is_404(
    tiny, client_for, outsider, organizer, small_limit, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        export(client_for(outsider), tiny.event, "kind=standings&format=csv")
    job = ExportJob.objects.get()
    for user in (organizer, tiny.players[0]):
        for path in (f"{JOBS}/{job.pk}/", f"{JOBS}/{job.pk}/download/"):
            assert error_of(client_for(user).get(path)) == (404, "not_found"), (user, path)
    assert error_of(client_for().get(f"{JOBS}/{job.pk}/")) == (403, "not_authenticated")
    admin = get_user_model().objects.create_superuser("root", password="pw")
    assert client_for(admin).get(f"{JOBS}/{job.pk}/").json()["status"] == "done"


def test_large_export_needs_a_signed_in_caller(tiny, client_for, small_limit):
    response = export(client_for(), tiny.event, "kind=standings&format=json")
    assert error_of(response) == (403, "login_required")
    assert ExportJob.objects.count() == 0


def test_hidden_round_is_404_before_any_job(tiny, client_for, outsider, organizer, small_limit):
    services.generate_round(tiny.event, actor=organizer)  # round 2 unpublished
    response = export(client_for(outsider), tiny.event, "kind=pairings&format=csv&round=2")
    assert error_of(response) == (404, "not_found")
    assert ExportJob.objects.count() == 0


def test_export_queries_do_not_grow(organizer, crossover, client_for):
    small = build_tiny_event(organizer, crossover, name="Small", names=["a", "b", "c"]).event
    large = build_tiny_event(
        organizer, crossover, name="Large", names=[f"n{i}" for i in range(12)], prefix="q"
    ).event
    for user in (None, organizer):
        client = client_for(user)
        for query in (
            "kind=standings&format=csv",
            "kind=pairings&format=json&round=1",
            "kind=decklists&format=xlsx",
        ):
            counts = []
            for event in (small, large):
                with CaptureQueriesContext(connection) as queries:
                    assert export(client, event, query).status_code == 200
                counts.append(len(queries))
            assert counts[0] == counts[1], (query, user)
            assert counts[0] <= 9, (query, counts)


def test_schema_documents_the_export_routes(client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/events/{event_pk}/export/"]["get"]
    responses = operation["responses"]
    assert {"200", "202", "400", "403", "404"} <= set(responses)
    assert set(responses["200"]["content"]) == {"text/csv", "application/json", XLSX_TYPE}
    assert responses["202"]["content"]["application/json"]["schema"]["$ref"].endswith("/ExportJob")
    for code in ("400", "403", "404"):
        content = responses[code]["content"]["application/json"]["schema"]
        assert content == {"$ref": "#/components/schemas/Error"}, code
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert set(parameters["kind"]["schema"]["enum"]) == {"standings", "pairings", "decklists"}
    assert set(parameters["format"]["schema"]["enum"]) == {"csv", "json", "xlsx"}
    assert parameters["kind"]["required"] is True
    job = schema["paths"]["/api/v1/export-jobs/{id}/"]["get"]["responses"]
    assert {"200", "404"} <= set(job)
    download = schema["paths"]["/api/v1/export-jobs/{id}/download/"]["get"]["responses"]
    assert {"200", "404", "409"} <= set(download)
