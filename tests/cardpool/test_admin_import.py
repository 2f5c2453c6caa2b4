import pytest
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cardpool.models import Card, ImportJob, Printing

pytestmark = pytest.mark.django_db

UPLOAD_URL = reverse("admin:cardpool_importjob_upload")
GOOD_CSV = "name,set,card_type,ap,dp\n森原 さとみ,base,CHARACTER,4,2\nスワティ,base,NAVIGATOR,,\n"
BAD_CSV = "name,set,card_type,ap\n森原 さとみ,base,CHARACTER,4\nスワティ,nowhere,MONSTER,x\n"


def upload(client, game, text, name="cards.csv"):
    return client.post(
        UPLOAD_URL,
        {"game": game.pk, "file": SimpleUploadedFile(name, text.encode(), "text/csv")},
    )


@pytest.fixture
def importer(client):
    user = User.objects.create_user("importer", password="pw", is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="add_importjob"),
        Permission.objects.get(codename="view_importjob"),
    )
    client.force_login(user)
    return client


def test_upload_imports_cards_and_shows_the_summary(
    importer, crossover_sets, game, django_capture_on_commit_callbacks
):
    # The task is queued when the upload's transaction commits; without a broker it runs
    # right then, in-process.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = upload(importer, game, GOOD_CSV)
    assert len(callbacks) == 1
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:cardpool_importjob_progress", args=[job.pk])
    assert job.status == ImportJob.Status.DONE
    assert (job.total, job.done) == (2, 2)
    assert job.report["cards_created"] == 2
    assert job.report["errors"] == []
    assert sorted(Card.objects.values_list("name", flat=True)) == ["スワティ", "森原 さとみ"]
    assert Printing.objects.filter(set__code="base").count() == 2

    page = importer.get(response["Location"])
    assert page.status_code == 200
    body = page.content.decode()
    assert "Cards: 2 new, 0 updated, 0 unchanged." in body
    assert 'value="100"' in body  # the progress bar is full
    assert "hx-trigger" not in body  # a finished job is not polled


def test_upload_with_bad_rows_writes_nothing_and_lists_each_problem(
    importer, crossover_sets, game, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        upload(importer, game, BAD_CSV)
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert Card.objects.count() == 0
    assert [(e["row"], e["field"]) for e in job.report["errors"]] == [
        (3, "ap"),
        (3, "card_type"),
        (3, "set"),
    ]
    body = importer.get(reverse("admin:cardpool_importjob_progress", args=[job.pk])).content
    body = body.decode()
    assert "3 problems found; nothing was imported." in body
    assert "MONSTER" in body
    assert "nowhere" in body


def test_progress_fragment_for_htmx_polling(importer, game):
    job = ImportJob.objects.create(game=game, filename="big.csv", content=b"", total=200)
    ImportJob.objects.filter(pk=job.pk).update(status="running", done=50)
    url = reverse("admin:cardpool_importjob_progress", args=[job.pk])
    response = importer.get(url, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body
    assert 'value="25"' in body
    assert f'hx-get="{url}"' in body
    assert "50 of 200 rows checked" in body


def test_upload_refuses_an_oversized_file(importer, game, settings):
    from cardpool import admin as cardpool_admin

    limit = cardpool_admin.MAX_UPLOAD_BYTES
    cardpool_admin.MAX_UPLOAD_BYTES = 10
    try:
        response = upload(importer, game, GOOD_CSV)
    finally:
        cardpool_admin.MAX_UPLOAD_BYTES = limit
    assert response.status_code == 200
    assert "The file is larger than 20 MB." in response.content.decode()
    assert ImportJob.objects.count() == 0


def test_upload_page_refuses_anonymous_users(client, game):
    response = client.get(UPLOAD_URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    response = upload(client, game, GOOD_CSV)
    assert response.status_code == 302
    assert ImportJob.objects.count() == 0


def test_upload_page_refuses_a_signed_in_outsider(client, game):
    client.force_login(User.objects.create_user("player", password="pw"))
    response = upload(client, game, GOOD_CSV)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert ImportJob.objects.count() == 0


def test_upload_page_refuses_staff_without_the_import_permission(client, game):
    client.force_login(User.objects.create_user("judge", password="pw", is_staff=True))
    assert client.get(UPLOAD_URL).status_code == 403
    assert upload(client, game, GOOD_CSV).status_code == 403
    job = ImportJob.objects.create(game=game, filename="x.csv", content=b"")
    progress = reverse("admin:cardpool_importjob_progress", args=[job.pk])
    assert client.get(progress).status_code == 403
    assert ImportJob.objects.count() == 1


def test_admin_add_button_leads_to_the_upload_page(admin_client):
    response = admin_client.get(reverse("admin:cardpool_importjob_add"))
    assert response.status_code == 302
    assert response["Location"] == UPLOAD_URL


def test_import_job_changelist_query_count(admin_client, game, django_assert_num_queries):
    ImportJob.objects.create(game=game, filename="a.csv", content=b"")
    url = reverse("admin:cardpool_importjob_changelist")
    admin_client.get(url)  # warm the session and content types
    with django_assert_num_queries(6) as first:
        admin_client.get(url)
    for name in ("b.csv", "c.csv", "d.csv"):
        ImportJob.objects.create(game=game, filename=name, content=b"")
    with django_assert_num_queries(len(first.captured_queries)):
        admin_client.get(url)


def test_admin_card_search_is_width_insensitive(admin_client, game):
    Card.objects.create(game=game, name="スワティ")
    response = admin_client.get(reverse("admin:cardpool_card_changelist"), {"q": "ｽﾜﾃｨ"})
    assert response.status_code == 200
    assert [card.name for card in response.context["cl"].result_list] == ["スワティ"]


def test_import_job_that_crashes_ends_failed_with_nothing_written(
    game, crossover_sets, monkeypatch
):
    from django.db import DatabaseError

    from cardpool import services

    def database_down(*args, **kwargs):
        raise DatabaseError("server closed the connection unexpectedly")

    # The failure sits at the database boundary, after the cards were inserted, so the
    # rollback of the whole import is exercised too.
    monkeypatch.setattr(Printing.objects, "bulk_create", database_down)
    job = ImportJob.objects.create(game=game, filename="cards.csv", content=GOOD_CSV.encode())
    services.run_import_job(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert job.finished_at is not None
    assert job.report["errors"][0]["reason"].startswith("internal error: DatabaseError(")
    assert Card.objects.count() == 0
    # A finished job is not run again when its task is delivered a second time.
    assert services.run_import_job(job.pk) is None
