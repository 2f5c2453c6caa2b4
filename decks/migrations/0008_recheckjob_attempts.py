# Written for issue #21: each run of a job is an attempt, counted (config.jobs.MAX_ATTEMPTS).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("decks", "0007_recheck_once_per_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="recheckjob",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="attempts"),
        ),
    ]
