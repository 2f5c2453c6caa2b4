from django.db import migrations, models


def mark_and_dedupe_recheck_rows(apps, schema_editor):
    """Rows a re-check wrote (checked against the job's version while it ran) are marked;
    of a deck's rows at one version in that time the earliest stays. A later row with the
    same outcome and report was a crashed run's repeat and goes; one that differs was the
    owner saving the deck meanwhile and stays, unmarked, as history. Harmless to repeat."""
    DeckCheck = apps.get_model("decks", "DeckCheck")
    RecheckJob = apps.get_model("decks", "RecheckJob")
    for job in RecheckJob.objects.order_by("id").iterator():
        at_version = DeckCheck.objects.filter(
            deck__format_id=job.format_id, format_version=job.format_version
        )
        kept = {row.deck_id: row for row in at_version.filter(by_recheck=True)}
        rows = at_version.filter(checked_at__gte=job.created_at, by_recheck=False)
        if job.finished_at is not None:
            rows = rows.filter(checked_at__lte=job.finished_at)
        for row in rows.order_by("deck_id", "checked_at", "id").iterator():
            first = kept.get(row.deck_id)
            if first is None:
                DeckCheck.objects.filter(pk=row.pk).update(by_recheck=True)
                kept[row.deck_id] = row
            elif (row.legal, row.report) == (first.legal, first.report):
                row.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("decks", "0006_crossover_third_expansion"),
    ]

    operations = [
        migrations.AddField(
            model_name="deckcheck",
            name="by_recheck",
            field=models.BooleanField(default=False, verbose_name="by a re-check"),
        ),
        migrations.AddField(
            model_name="recheckjob",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="last heartbeat"),
        ),
        migrations.RunPython(mark_and_dedupe_recheck_rows, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="deckcheck",
            constraint=models.UniqueConstraint(
                condition=models.Q(("by_recheck", True)),
                fields=("deck", "format_version"),
                name="deckcheck_one_recheck_per_version",
            ),
        ),
    ]
