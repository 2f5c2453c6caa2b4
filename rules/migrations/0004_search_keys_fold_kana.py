"""Rewrite the stored search keys with kana folding (rules.text.search_key): katakana are
stored as hiragana, so さいどぼーど finds サイドボード (issue #24). No schema change."""

from django.db import migrations

from rules.text import fold, search_key


def rewrite_search_keys(apps, schema_editor, key=search_key):
    Section = apps.get_model("rules", "Section")
    Ruling = apps.get_model("rules", "Ruling")
    sections = []
    for section in Section.objects.only("number", "title", "body").iterator(chunk_size=500):
        section.search_title = key(section.title)
        section.search_text = key(f"{section.number} {section.title}\n{section.body}")
        sections.append(section)
    Section.objects.bulk_update(sections, ["search_title", "search_text"], batch_size=500)
    rulings = []
    for ruling in Ruling.objects.prefetch_related("cards", "sections"):
        cards = " ".join(card.name for card in ruling.cards.all())
        cited = " ".join(f"{section.number} {section.title}" for section in ruling.sections.all())
        ruling.search_text = key(
            f"{ruling.question}\n{ruling.answer}\n{cards}\n{cited}\n{ruling.source}"
        )
        rulings.append(ruling)
    Ruling.objects.bulk_update(rulings, ["search_text"], batch_size=500)


def restore_search_keys(apps, schema_editor):
    rewrite_search_keys(apps, schema_editor, key=fold)


class Migration(migrations.Migration):
    dependencies = [("rules", "0003_labels")]

    operations = [migrations.RunPython(rewrite_search_keys, restore_search_keys)]
