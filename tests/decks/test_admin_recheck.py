"""Changing a ban list in the admin re-checks every stored deck of the format (a Celery
task, run when the admin's transaction commits) and shows the progress."""

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from decks import services
from decks.models import BanEntry, DeckCheck, Format, RecheckJob
from tests.decks.conftest import LEGAL_DECK

pytestmark = pytest.mark.django_db

ADD_URL = reverse("admin:decks_banentry_add")


def progress_url(job):
    return reverse("admin:decks_recheckjob_progress", args=[job.pk])


@pytest.fixture
def decks(crossover, player):
    satomi, _ = services.save_deck(owner=player, fmt=crossover, name="Satomi deck", text=LEGAL_DECK)
    clean, _ = services.save_deck(
        owner=player,
        fmt=crossover,
        name="Clean deck",
        text="4 狡猾フィーリア [base]\n46 スワティ\n",
    )
    return {"satomi": satomi, "clean": clean}


def ban_form(crossover, card, **values):
    return {
        "format": crossover.pk,
        "card": card.pk,
        "printing_set": "",
        "effective_from": "",
        "effective_until": "",
        "note": "",
        "source": "",
        "_save": "Save",
        **values,
    }


@pytest.fixture
def job(crossover):
    return RecheckJob.objects.create(format=crossover, format_version=2, reason="test")


def test_adding_a_ban_rechecks_the_format_and_lists_decks_that_became_illegal(
    admin_client, crossover, cards, decks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin_client.post(
            ADD_URL, ban_form(crossover, cards["satomi"], source="organizer")
        )
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:decks_banentry_changelist")
    assert len(callbacks) == 1
    ban = BanEntry.objects.get(card=cards["satomi"])
    assert (ban.format, ban.printing_set, ban.effective_from) == (crossover, None, None)
    assert Format.objects.get(pk=crossover.pk).version == 2
    job = RecheckJob.objects.get()
    assert job.format == crossover
    assert job.format_version == 2
    assert job.reason == "ban list: 森原 さとみ saved"
    assert job.created_by == User.objects.get(username="admin")
    assert job.status == RecheckJob.Status.DONE
    assert (job.total, job.done) == (2, 2)
    assert job.became_illegal == [
        {
            "deck": decks["satomi"].pk,
            "name": "Satomi deck",
            "owner": "player",
            "codes": ["BANNED"],
        }
    ]
    assert DeckCheck.objects.filter(format_version=2).count() == 2

    changelist = admin_client.get(response["Location"]).content.decode()
    assert "Every stored deck of this format is being checked again." in changelist
    assert f'<a href="{progress_url(job)}">Follow the progress</a>' in changelist

    page = admin_client.get(progress_url(job))
    assert page.status_code == 200
    body = page.content.decode()
    assert "<html" in body
    assert "<h2>1 deck became illegal</h2>" in body
    change_url = reverse("admin:decks_deck_change", args=[decks["satomi"].pk])
    assert f'<td><a href="{change_url}">Satomi deck</a></td><td>player</td><td>BANNED</td>' in body
    assert "Clean deck" not in body
    assert "2 of 2 decks checked against version 2" in body
    assert 'value="100"' in body
    assert "hx-trigger" not in body  # a finished job is not polled


def test_adding_a_ban_that_changes_nothing(
    admin_client, crossover, cards, decks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            ADD_URL, ban_form(crossover, cards["feeria"], effective_from="2099-01-01")
        )
    job = RecheckJob.objects.get()
    assert job.status == RecheckJob.Status.DONE
    assert job.became_illegal == []
    body = admin_client.get(progress_url(job)).content.decode()
    assert "No deck became illegal." in body


def test_removing_a_ban_queues_a_recheck(
    admin_client, crossover, cards, decks, django_capture_on_commit_callbacks
):
    ban = BanEntry.objects.get(card__name="狡猾フィーリア")
    url = reverse("admin:decks_banentry_delete", args=[ban.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not BanEntry.objects.filter(pk=ban.pk).exists()
    job = RecheckJob.objects.get()
    assert job.reason == "ban list: 狡猾フィーリア (beta) removed"
    assert job.status == RecheckJob.Status.DONE
    assert Format.objects.get(pk=crossover.pk).version == 2


def test_invalid_ban_form_queues_nothing(admin_client, crossover, cards, decks):
    response = admin_client.post(
        ADD_URL,
        ban_form(
            crossover, cards["satomi"], effective_from="2002-04-01", effective_until="2002-04-01"
        ),
    )
    assert response.status_code == 200
    assert "Must be after the start date." in response.content.decode()
    assert RecheckJob.objects.count() == 0
    assert Format.objects.get(pk=crossover.pk).version == 1


def test_progress_fragment_for_htmx_polling(admin_client, job):
    RecheckJob.objects.filter(pk=job.pk).update(
        status=RecheckJob.Status.RUNNING, total=200, done=50
    )
    url = progress_url(job)
    response = admin_client.get(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert '<div id="job-status"' in body
    assert f'hx-get="{url}"' in body
    assert 'hx-trigger="every 1s"' in body
    assert 'value="25"' in body
    assert "50 of 200 decks checked against version 2" in body


def test_progress_page_of_a_failed_job_shows_the_error(admin_client, job):
    RecheckJob.objects.filter(pk=job.pk).update(
        status=RecheckJob.Status.FAILED, error="RuntimeError('boom')"
    )
    body = admin_client.get(progress_url(job)).content.decode()
    assert "RuntimeError(&#x27;boom&#x27;)" in body
    assert "hx-trigger" not in body


def test_progress_page_of_an_unknown_job_is_404(admin_client, db):
    response = admin_client.get(reverse("admin:decks_recheckjob_progress", args=[999]))
    assert response.status_code == 404


def test_progress_page_refuses_staff_without_permission(client, job):
    client.force_login(User.objects.create_user("judge", password="pw", is_staff=True))
    assert client.get(progress_url(job)).status_code == 403
    assert client.get(progress_url(job), HTTP_HX_REQUEST="true").status_code == 403


def test_progress_page_allows_staff_with_view_permission(client, job):
    judge = User.objects.create_user("judge", password="pw", is_staff=True)
    judge.user_permissions.add(Permission.objects.get(codename="view_recheckjob"))
    client.force_login(judge)
    assert client.get(progress_url(job)).status_code == 200


def test_progress_page_sends_non_staff_to_the_admin_login(client, player, job):
    client.force_login(player)
    response = client.get(progress_url(job))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('admin:login')}?next={progress_url(job)}"


def test_progress_page_sends_anonymous_to_the_admin_login(client, job):
    response = client.get(progress_url(job))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_staff_without_ban_permission_cannot_add_a_ban(client, crossover, cards):
    client.force_login(User.objects.create_user("judge", password="pw", is_staff=True))
    response = client.post(ADD_URL, ban_form(crossover, cards["satomi"]))
    assert response.status_code == 403
    assert BanEntry.objects.filter(card=cards["satomi"]).count() == 0
    assert RecheckJob.objects.count() == 0


def format_form(fmt, **values):
    """The admin change form of ``fmt`` as the browser would post it, unchanged."""
    bans = list(fmt.bans.order_by("pk"))
    legal_sets = list(fmt.legal_set_entries.order_by("pk"))
    data = {
        "game": fmt.game_id,
        "slug": fmt.slug,
        "name": fmt.name,
        "min_deck_size": fmt.min_deck_size or "",
        "max_deck_size": fmt.max_deck_size or "",
        "copy_limit": fmt.copy_limit or "",
        "exempt_unlimited": "on" if fmt.exempt_unlimited else "",
        "exempt_card_type": fmt.exempt_card_type,
        "sideboard_min": fmt.sideboard_min,
        "sideboard_max": fmt.sideboard_max,
        "leader_type": fmt.leader_type,
        "leader_count": fmt.leader_count,
        # The rule citations are one text box per kind of problem.
        **{f"rule_sections__{code}": section for code, section in fmt.rule_sections.items()},
        "notes": fmt.notes,
        # The legal sets are inline rows, each with the day it becomes legal.
        "legal_set_entries-TOTAL_FORMS": len(legal_sets),
        "legal_set_entries-INITIAL_FORMS": len(legal_sets),
        "legal_set_entries-MIN_NUM_FORMS": 0,
        "legal_set_entries-MAX_NUM_FORMS": 1000,
        "bans-TOTAL_FORMS": len(bans),
        "bans-INITIAL_FORMS": len(bans),
        "bans-MIN_NUM_FORMS": 0,
        "bans-MAX_NUM_FORMS": 1000,
        "copy_groups-TOTAL_FORMS": 0,
        "copy_groups-INITIAL_FORMS": 0,
        "copy_groups-MIN_NUM_FORMS": 0,
        "copy_groups-MAX_NUM_FORMS": 1000,
        "_save": "Save",
    }
    for index, row in enumerate(legal_sets):
        data.update(
            {
                f"legal_set_entries-{index}-id": row.pk,
                f"legal_set_entries-{index}-format": fmt.pk,
                f"legal_set_entries-{index}-card_set": row.card_set_id,
                f"legal_set_entries-{index}-legal_from": row.legal_from or "",
            }
        )
    for index, ban in enumerate(bans):
        data.update(
            {
                f"bans-{index}-id": ban.pk,
                f"bans-{index}-format": fmt.pk,
                f"bans-{index}-card": ban.card_id,
                f"bans-{index}-printing_set": ban.printing_set_id or "",
                f"bans-{index}-effective_from": ban.effective_from or "",
                f"bans-{index}-effective_until": ban.effective_until or "",
                f"bans-{index}-note": ban.note,
                f"bans-{index}-source": ban.source,
            }
        )
    return {**data, **{k: v for k, v in values.items() if v is not None}}


def test_editing_a_format_limit_rechecks_its_decks(
    admin_client, crossover, decks, django_capture_on_commit_callbacks
):
    url = reverse("admin:decks_format_change", args=[crossover.pk])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin_client.post(url, format_form(crossover, copy_limit=3))
    assert response.status_code == 302, response.context["errors"]
    assert len(callbacks) == 1
    crossover.refresh_from_db()
    assert (crossover.copy_limit, crossover.version) == (3, 2)
    assert crossover.bans.count() == 3
    job = RecheckJob.objects.get()
    assert job.reason == "format edited in the admin"
    assert job.status == RecheckJob.Status.DONE
    assert [(d["deck"], d["name"], d["codes"]) for d in job.became_illegal] == [
        (decks["satomi"].pk, "Satomi deck", ["TOO_MANY_COPIES", "TOO_MANY_COPIES"]),
        (decks["clean"].pk, "Clean deck", ["TOO_MANY_COPIES"]),
    ]


def test_saving_an_unchanged_format_queues_nothing(
    admin_client, crossover, decks, django_capture_on_commit_callbacks
):
    url = reverse("admin:decks_format_change", args=[crossover.pk])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin_client.post(url, format_form(crossover))
    assert response.status_code == 302, response.context["errors"]
    assert callbacks == []
    assert RecheckJob.objects.count() == 0
    assert Format.objects.get(pk=crossover.pk).version == 1
