"""Trigram indexes for the rules search on PostgreSQL.

The search filters with LIKE '%term%' on the folded search text (the same filter on
every database, so SQLite and PostgreSQL find the same results); on PostgreSQL a GIN
trigram index makes those filters fast and pg_trgm's similarity ranks results within
a tier. TrigramExtension does nothing on other databases, and neither do the indexes.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEXES = [
    ("rules_section_search_trgm", "rules_section", "search_text"),
    ("rules_section_title_trgm", "rules_section", "search_title"),
    ("rules_ruling_search_trgm", "rules_ruling", "search_text"),
]


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, table, column in INDEXES:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ({column} gin_trgm_ops)"
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _table, _column in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("rules", "0001_initial")]

    operations = [
        TrigramExtension(),
        migrations.RunPython(create_indexes, drop_indexes),
    ]
