"""A format may honour the "any number of copies" mark for one card type only (rule 1−2−3:
common navigators), and its legal sets carry a date: the plain many-to-many table of legal
sets becomes the table of the LegalSet model (same table and columns, no data copied),
which adds ``legal_from``."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cardpool", "0002_labels"),
        ("decks", "0002_labels_and_rule_sections_help"),
    ]

    operations = [
        migrations.AddField(
            model_name="format",
            name="exempt_card_type",
            field=models.CharField(
                blank=True,
                choices=[
                    ("CHARACTER", "Character"),
                    ("NAVIGATOR", "Navigator"),
                    ("SPELL", "Spell"),
                    ("EVENT", "Event"),
                    ("ITEM", "Item"),
                ],
                help_text=(
                    "Rule 1−2−3 lets only common navigators be played in any number: with"
                    " Navigator here, a card of another type marked “any number” by mistake"
                    " still counts."
                ),
                max_length=10,
                verbose_name="only cards of this type are exempt",
            ),
        ),
        # The table Django made for Format.legal_sets (id, format_id, cardset_id, unique
        # together) is exactly this model's: only the project state changes.
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="LegalSet",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "card_set",
                            models.ForeignKey(
                                db_column="cardset_id",
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="cardpool.cardset",
                                verbose_name="card set",
                            ),
                        ),
                        (
                            "format",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="legal_set_entries",
                                to="decks.format",
                                verbose_name="format",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "legal set",
                        "verbose_name_plural": "legal sets",
                        "db_table": "decks_format_legal_sets",
                        "unique_together": {("format", "card_set")},
                    },
                ),
                migrations.AlterField(
                    model_name="format",
                    name="legal_sets",
                    field=models.ManyToManyField(
                        blank=True,
                        help_text="Leave empty to allow every set.",
                        related_name="formats",
                        through="decks.LegalSet",
                        to="cardpool.cardset",
                        verbose_name="legal sets",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="legalset",
            name="legal_from",
            field=models.DateField(
                blank=True,
                help_text=(
                    "The first day the set may be played in this format. Empty: from the"
                    " set's release date, or on any day when that is not known."
                ),
                null=True,
                verbose_name="legal from",
            ),
        ),
    ]
