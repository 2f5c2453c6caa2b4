"""Folding cards that are one card by name (rules 1−2−1, 4−2−6) into one.

When name identity learned to ignore quotation brackets, wave-dash and ellipsis variants
(cardpool.names), a pool could hold 〔森原さとみ〕 and 森原 さとみ as two cards, letting a list
play five copies. :func:`merge_same_name_cards` folds every such group into one card: its
printings, rulings, errata, ban-list entries, decklist lines and copy groups move to the
kept card, and a :class:`~cardpool.models.CardMerge` row records what moved.

It takes ``get_model(app_label, model_name)`` so that the migration runs it with the
historical models and tests with the current ones.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from .names import OPENING_BRACKETS, bare_name, name_key, search_key

# Card fields copied from a merged card where the kept card leaves them empty.
FILLED_FIELDS = (
    "card_type",
    "element",
    "cost",
    "gender",
    "ap",
    "dp",
    "deck_size_min",
    "deck_size_max",
    "notes",
)


def written_bare(name: str) -> bool:
    """True when the stored name is not wrapped in brackets (the printed form)."""
    text = unicodedata.normalize("NFKC", name).strip()
    return not text.startswith(tuple(OPENING_BRACKETS))


def merge_same_name_cards(get_model: Callable) -> list[dict]:
    """Merge every group of cards of one game whose names share a key, then store the
    current keys on every card. Returns one dict per merged card (kept id and name, merged
    id and name, what moved)."""
    Card = get_model("cardpool", "Card")
    groups: dict[tuple[int, str], list] = {}
    for card in Card.objects.order_by("id").only("id", "game_id", "name"):
        groups.setdefault((card.game_id, name_key(card.name)), []).append(card)
    merged = []
    for cards in groups.values():
        if len(cards) < 2:
            continue
        keep = min(cards, key=lambda card: (not written_bare(card.name), card.id))
        keep = Card.objects.get(pk=keep.pk)
        for other in cards:
            if other.pk != keep.pk:
                merged.append(_merge(get_model, keep, Card.objects.get(pk=other.pk)))
    _store_keys(Card)
    return merged


def _merge(get_model: Callable, keep, other) -> dict:
    Printing = get_model("cardpool", "Printing")
    CardMerge = get_model("cardpool", "CardMerge")
    Erratum = get_model("rules", "Erratum")
    Ruling = get_model("rules", "Ruling")
    BanEntry = get_model("decks", "BanEntry")
    CopyGroup = get_model("decks", "CopyGroup")
    DeckEntry = get_model("decks", "DeckEntry")

    moved: dict[str, object] = {}
    conflicts = {}
    filled = []
    for field in FILLED_FIELDS:
        mine, theirs = getattr(keep, field), getattr(other, field)
        if mine in ("", None) and theirs not in ("", None):
            setattr(keep, field, theirs)
            filled.append(field)
        elif theirs not in ("", None) and theirs != mine:
            conflicts[field] = theirs
    if other.unlimited != keep.unlimited:
        conflicts["unlimited"] = other.unlimited
    if filled:
        keep.save(update_fields=filled)

    printings = dropped = 0
    for printing in Printing.objects.filter(card=other):
        twin = Printing.objects.filter(
            card=keep, set_id=printing.set_id, number=printing.number
        ).first()
        if twin is None:
            printing.card = keep
            printing.save(update_fields=["card"])
            printings += 1
            continue
        if not twin.text and printing.text:
            twin.text = printing.text
            twin.save(update_fields=["text"])
        printing.delete()
        dropped += 1
    moved["printings"] = printings
    moved["duplicate_printings_dropped"] = dropped
    moved["errata"] = Erratum.objects.filter(card=other).update(card=keep)
    moved["rulings"] = _move_m2m(Ruling.objects.filter(cards=other), keep, other)
    moved["copy_groups"] = _move_m2m(CopyGroup.objects.filter(cards=other), keep, other)
    moved["deck_lines"] = DeckEntry.objects.filter(card=other).update(card=keep)
    moved["ban_entries"] = _move_bans(BanEntry, keep, other)
    if filled:
        moved["filled_fields"] = filled
    if conflicts:
        moved["differing_values_dropped"] = conflicts

    summary = {
        "game_id": keep.game_id,
        "kept_id": keep.pk,
        "kept_name": keep.name,
        "merged_id": other.pk,
        "merged_name": other.name,
        "moved": moved,
    }
    CardMerge.objects.create(
        game_id=keep.game_id,
        card=keep,
        merged_name=other.name,
        merged_card_id=other.pk,
        moved=moved,
    )
    other.delete()
    return summary


def _move_m2m(queryset, keep, other) -> int:
    count = 0
    for row in queryset:
        row.cards.add(keep)
        row.cards.remove(other)
        count += 1
    return count


def _move_bans(ban_model, keep, other) -> int:
    """Move the ban-list entries; one that says exactly what the kept card's entry says
    is dropped rather than listed twice."""
    fields = ("format_id", "printing_set_id", "effective_from", "effective_until")
    existing = {
        tuple(getattr(ban, f) for f in fields) for ban in ban_model.objects.filter(card=keep)
    }
    count = 0
    for ban in ban_model.objects.filter(card=other):
        if tuple(getattr(ban, f) for f in fields) in existing:
            ban.delete()
            continue
        ban.card = keep
        ban.save(update_fields=["card"])
        count += 1
    return count


def _store_keys(card_model) -> None:
    """Store each card's current keys, and its name as printed (『清姫』 becomes 清姫)."""
    changed = []
    for card in card_model.objects.only("id", "name", "name_key", "search_key"):
        name = bare_name(card.name)
        key, search = name_key(name), search_key(name)
        if (card.name, card.name_key, card.search_key) != (name, key, search):
            card.name, card.name_key, card.search_key = name, key, search
            changed.append(card)
    card_model.objects.bulk_update(changed, ["name", "name_key", "search_key"], batch_size=500)
