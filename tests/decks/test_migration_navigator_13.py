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
