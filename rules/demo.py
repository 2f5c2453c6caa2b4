"""Demo rules content for a fresh site (``demo_rules.json``): a short tournament-procedures
document, example rulings about demo cards and example errata, all written for the project
and marked "Demo — not official". Loaded by ``load_demo`` after the demo card pool so that
search, section pages, card rulings and the calculator have something to show before the
official rulebook is imported (only ``import_rules`` brings that)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from cardpool.models import Card, Game
from cardpool.names import name_key

from . import services
from .models import Erratum, Ruling, RulingStatus
from .parsing import ParsedDocument, ParsedSection
from .text import number_key

DEMO_FILE = Path(__file__).resolve().parent / "demo_rules.json"


@dataclass(frozen=True)
class DemoRulesSummary:
    document_created: bool
    sections: int
    rulings_created: int
    errata_created: int


def demo_data() -> dict:
    return json.loads(DEMO_FILE.read_text(encoding="utf-8"))


def parsed_demo_document(spec: dict) -> ParsedDocument:
    """The demo document as the importer's parsed form (no parsing: the JSON is exact)."""
    index = {section["number"]: position for position, section in enumerate(spec["sections"])}
    sections = []
    for section in spec["sections"]:
        parent = index[section["parent"]] if section.get("parent") else None
        sections.append(
            ParsedSection(
                number=section["number"],
                key=number_key(section["number"]),
                title=section["title"],
                body=section["body"],
                level=1 if parent is None else 2,
                parent=parent,
            )
        )
    return ParsedDocument(
        style="demo",
        title=spec["title"],
        version=spec["version"],
        date=None,
        sections=tuple(sections),
    )


def ruling_source(data: dict, key: str) -> str:
    """The source written on a demo ruling or erratum: the demo mark and its key, by
    which a second load finds it (whatever was edited since)."""
    return f"{data['source']} · {key}"


@transaction.atomic
def load_demo_rules() -> DemoRulesSummary:
    """Create the demo document (a new version only when the shipped one changed) and the
    demo rulings and errata that are missing. Needs the demo card pool. A demo ruling or
    erratum that exists already is left as it was edited; one that was deleted comes back."""
    data = demo_data()
    game = Game.objects.get(slug=data["game"])
    spec = data["document"]
    raw = json.dumps(spec, ensure_ascii=False, sort_keys=True).encode()
    report = services.import_parsed_document(
        game=game,
        parsed=parsed_demo_document(spec),
        checksum=hashlib.sha256(raw).hexdigest(),
        series=spec["series"],
        source_name=DEMO_FILE.name,
    )
    sections = {section.number_key: section for section in report.document.sections.all()}

    rulings_created = 0
    for entry in data["rulings"]:
        source = ruling_source(data, entry["key"])
        if Ruling.objects.filter(game=game, source=source).exists():
            continue
        ruling = Ruling(
            game=game,
            question=entry["question"],
            answer=entry["answer"],
            source=source,
            status=RulingStatus.COMMUNITY,
        )
        services.save_ruling(
            ruling,
            by=None,
            cards=[_card(game, name) for name in entry["cards"]],
            sections=[sections[number_key(number)] for number in entry["sections"]],
        )
        rulings_created += 1

    errata_created = 0
    for entry in data["errata"]:
        card = _card(game, entry["card"])
        source = ruling_source(data, entry["key"])
        if Erratum.objects.filter(card=card, source=source).exists():
            continue
        services.save_erratum(
            Erratum(
                card=card,
                date=dt.date.fromisoformat(entry["date"]),
                new_text=entry["new_text"],
                source=source,
            ),
            by=None,
        )
        errata_created += 1
    return DemoRulesSummary(
        document_created=not report.unchanged,
        sections=report.sections,
        rulings_created=rulings_created,
        errata_created=errata_created,
    )


def _card(game: Game, name: str) -> Card:
    card = Card.objects.filter(game=game, name_key=name_key(name)).first()
    if card is None:
        raise LookupError(f"demo rules: the card {name} is not in the pool (load the demo pool)")
    return card
