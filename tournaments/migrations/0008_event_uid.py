"""Event.uid: a UUID naming the event in its event file (docs/event-file.md).

Added nullable, filled with a new UUID per existing event, then made unique and required
(a callable default in AddField would give every existing row the same value)."""

import uuid

from django.db import migrations, models


def fill_uids(apps, schema_editor):
    Event = apps.get_model("tournaments", "Event")
    for event in Event.objects.filter(uid__isnull=True).only("pk"):
        event.uid = uuid.uuid4()
        event.save(update_fields=["uid"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0007_deckcheck"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="uid",
            field=models.UUIDField(editable=False, null=True, verbose_name="event file identifier"),
        ),
        migrations.RunPython(fill_uids, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="event",
            name="uid",
            field=models.UUIDField(
                default=uuid.uuid4,
                editable=False,
                unique=True,
                verbose_name="event file identifier",
            ),
        ),
    ]
