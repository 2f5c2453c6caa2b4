# Written for issue #21: each run of a job is an attempt, counted (config.jobs.MAX_ATTEMPTS).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cardpool", "0006_importjob_heartbeat_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="attempts"),
        ),
    ]
