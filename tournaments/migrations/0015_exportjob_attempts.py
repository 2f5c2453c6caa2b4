# Written for issue #21: each run of a job is an attempt, counted (config.jobs.MAX_ATTEMPTS).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0014_username_skeleton"),
    ]

    operations = [
        migrations.AddField(
            model_name="exportjob",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="attempts"),
        ),
    ]
