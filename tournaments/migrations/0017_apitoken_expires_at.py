from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0016_eventfileimport_checked_decklists"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="expires"
            ),
        ),
    ]
