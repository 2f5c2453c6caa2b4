"""The built-in crossover format honours "any number of copies" only for navigators
(rule 1−2−3: common navigators). Databases made before the setting existed get it here;
the format's version goes up so that checks made under the old reading are told apart.
A format an organizer renamed or made under another slug is left alone."""

from django.db import migrations
from django.db.models import F


def navigator_only(apps, schema_editor):
    Format = apps.get_model("decks", "Format")
    Format.objects.filter(slug="crossover", game__slug="crossover", exempt_card_type="").update(
        exempt_card_type="NAVIGATOR", version=F("version") + 1
    )


class Migration(migrations.Migration):
    dependencies = [
        ("decks", "0003_exempt_card_type_and_dated_legal_sets"),
    ]

    operations = [
        migrations.RunPython(navigator_only, migrations.RunPython.noop, elidable=True),
    ]
