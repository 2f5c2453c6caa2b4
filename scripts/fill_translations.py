"""Fill a .po catalogue from a Python dict of translations (msgid or (context, msgid)).

    python scripts/fill_translations.py locale/ja/LC_MESSAGES/django.po TRANSLATIONS.py
    python scripts/fill_translations.py locale/en/LC_MESSAGES/django.po

The file TRANSLATIONS.py defines a dict named TRANSLATIONS. Without it (English, the
source language) the catalogue only gets a proper header. Prints the msgids still
untranslated, so a missing translation is seen at once.
"""

import runpy
import sys
from pathlib import Path

from babel import Locale
from babel.messages.pofile import read_po, write_po


def main(po_path: str, table_path: str | None = None) -> int:
    table = runpy.run_path(table_path)["TRANSLATIONS"] if table_path else {}
    language = Path(po_path).parent.parent.name
    with open(po_path, "rb") as handle:
        catalog = read_po(handle, locale=language)
    catalog.locale = Locale.parse(language)
    catalog.project = "crossover-tournaments"
    catalog.fuzzy = False
    missing = []
    for message in catalog:
        if not message.id:
            continue
        singular = message.id[0] if isinstance(message.id, tuple) else message.id
        key = (message.context, singular) if message.context else message.id
        value = table.get(key)
        if value is None and isinstance(message.id, tuple):
            value = table.get(singular)
        if value is None:
            # A fuzzy entry is makemessages' guess from a similar old msgid: never ship it.
            if "fuzzy" in message.flags:
                message.string = (
                    ("",) * len(message.string) if isinstance(message.id, tuple) else ""
                )
                message.flags.discard("fuzzy")
            if table and (not message.string or not any(message.string)):
                missing.append(key)
            continue
        if isinstance(message.id, tuple):
            message.string = tuple(value) if isinstance(value, list | tuple) else (value,)
        else:
            message.string = value
        message.flags.discard("fuzzy")
    with open(po_path, "wb") as handle:
        write_po(handle, catalog, width=100, omit_header=False, ignore_obsolete=True)
    for key in missing:
        print("untranslated:", key)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
