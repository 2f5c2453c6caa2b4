"""The built-in crossover format lists THIRD EXPANSION, legal from 2002-04-02 (the day
after the v2.02 set list of 2002-04-01, which does not name it; decks/builtin_formats.json).
Databases made before dated legal sets existed get it here, with a new format version, so
events up to 2002-04-01 keep refusing it and later ones accept it. A format that lists
every set (no legal sets) or already lists THIRD EXPANSION is left alone."""

import datetime as dt

from django.db import migrations
from django.db.models import F

THIRD_FROM = dt.date(2002, 4, 2)


def list_third_expansion(apps, schema_editor):
    Format = apps.get_model("decks", "Format")
    LegalSet = apps.get_model("decks", "LegalSet")
    CardSet = apps.get_model("cardpool", "CardSet")
    for fmt in Format.objects.filter(slug="crossover", game__slug="crossover"):
        listed = LegalSet.objects.filter(format=fmt)
        third = CardSet.objects.filter(game_id=fmt.game_id, code="third").first()
        if third is None or not listed.exists() or listed.filter(card_set=third).exists():
            continue
        LegalSet.objects.create(format=fmt, card_set=third, legal_from=THIRD_FROM)
        Format.objects.filter(pk=fmt.pk).update(version=F("version") + 1)


class Migration(migrations.Migration):
    dependencies = [
        ("decks", "0005_legality_check_label"),
    ]

    operations = [
        migrations.RunPython(list_third_expansion, migrations.RunPython.noop, elidable=True),
    ]
