# Written for issue #21: the look-alike key of every username, for existing accounts too.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def record_existing(apps, schema_editor):
    """Every account made before this migration gets its skeleton (new ones get theirs
    from the user model's post_save)."""
    from django.contrib.auth import get_user_model

    from tournaments.usernames import skeleton

    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    username_skeleton = apps.get_model("tournaments", "UsernameSkeleton")
    # Historical models carry no USERNAME_FIELD; the real model names the column.
    field = get_user_model().USERNAME_FIELD
    batch = []
    for pk, username in user_model.objects.values_list("pk", field).iterator(chunk_size=2000):
        batch.append(username_skeleton(user_id=pk, skeleton=skeleton(username)))
        if len(batch) == 2000:
            username_skeleton.objects.bulk_create(batch)
            batch = []
    username_skeleton.objects.bulk_create(batch)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0013_fileidentity_imported_acts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="UsernameSkeleton",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="username_skeleton",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="user",
                    ),
                ),
                ("skeleton", models.TextField(verbose_name="skeleton")),
            ],
            options={
                "verbose_name": "username skeleton",
                "verbose_name_plural": "username skeletons",
                "indexes": [models.Index(fields=["skeleton"], name="usernameskeleton_skeleton")],
            },
        ),
        migrations.RunPython(record_existing, migrations.RunPython.noop),
    ]
