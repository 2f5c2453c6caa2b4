"""Migration decks 0004: an existing crossover format gets the navigator-only exemption
(rule 1−2−3) and a new version; other formats are left alone."""

import importlib

from django.apps import apps

from decks.models import Format

migration = importlib.import_module("decks.migrations.0004_crossover_navigator_exemption")


def test_existing_crossover_format_becomes_navigator_only_1_2_3(formats):
    Format.objects.update(exempt_card_type="")
    before = {f.slug: f.version for f in Format.objects.all()}
    migration.navigator_only(apps, None)
    after = {f.slug: (f.exempt_card_type, f.version) for f in Format.objects.all()}
    assert after["crossover"] == ("NAVIGATOR", before["crossover"] + 1)
    assert after["monster-collection"] == ("", before["monster-collection"])
    migration.navigator_only(apps, None)  # a second run changes nothing
    assert Format.objects.get(slug="crossover").version == before["crossover"] + 1


third_migration = importlib.import_module("decks.migrations.0006_crossover_third_expansion")


def test_existing_crossover_format_lists_third_expansion_from_2002_04_02_1_2_1(formats, sets):
    from decks.models import LegalSet

    crossover = Format.objects.get(slug="crossover")
    LegalSet.objects.filter(format=crossover, card_set__code="third").delete()
    version = crossover.version
    third_migration.list_third_expansion(apps, None)
    entry = LegalSet.objects.get(format=crossover, card_set__code="third")
    assert entry.legal_from.isoformat() == "2002-04-02"
    assert Format.objects.get(pk=crossover.pk).version == version + 1
    third_migration.list_third_expansion(apps, None)  # a second run changes nothing
    assert Format.objects.get(pk=crossover.pk).version == version + 1
    assert LegalSet.objects.filter(format=crossover, card_set__code="third").count() == 1


def test_stale_stored_decks_are_queued_for_a_recheck_once(
    crossover, player, django_capture_on_commit_callbacks
):
    from decks.models import Deck, DeckCheck, RecheckJob
    from decks.services import queue_stale_rechecks, save_deck

    from .conftest import LEGAL_DECK

    deck, _report = save_deck(owner=player, fmt=crossover, name="mine", text=LEGAL_DECK)
    assert queue_stale_rechecks() == []  # checked against the current version
    Format.objects.filter(pk=crossover.pk).update(version=crossover.version + 1)
    with django_capture_on_commit_callbacks(execute=True):
        [job] = queue_stale_rechecks()
    job.refresh_from_db()
    # Celery runs in-process in tests: the job ran and the deck has a check at the new version.
    assert (job.format_id, job.format_version, job.status) == (
        crossover.pk,
        crossover.version + 1,
        RecheckJob.Status.DONE,
    )
    assert DeckCheck.objects.filter(deck=deck, format_version=crossover.version + 1).count() == 1
    assert queue_stale_rechecks() == []  # a job for this version exists
    assert Deck.objects.count() == 1
