from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_safe

from rules.selectors import cards_with_rules, current_card_text, latest_erratum, rulings_for_card

from .models import CardType
from .printings import newest_with_reason, printing_key
from .selectors import CardFilter, cards_with_printings

PAGE_SIZE = 50


@require_safe
def card_list(request):
    card_filter = CardFilter(request.GET or None, queryset=cards_with_printings())
    page = Paginator(card_filter.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"filter": card_filter, "page": page, "query": _query_without_page(request)}
    if request.headers.get("HX-Request") == "true":
        return render(request, "cardpool/_card_results.html", context)
    return render(request, "cardpool/card_list.html", context)


@require_safe
def card_detail(request, pk: int):
    card = get_object_or_404(cards_with_rules(), pk=pk)
    # The printing whose text is in force (rule 1−2−1) and why, from the prefetched ones.
    newest, newest_reason = newest_with_reason(
        card.printings.all(), key=printing_key, as_of=timezone.localdate()
    )
    return render(
        request,
        "cardpool/card_detail.html",
        {
            "card": card,
            "newest": newest,
            "newest_reason": newest_reason,
            "erratum": latest_erratum(card),
            "current_text": current_card_text(card),
            "rulings": rulings_for_card(card),
            "copies": _copies_in_a_deck(card),
        },
    )


def _copies_in_a_deck(card) -> dict:
    """How many copies of ``card`` a deck may hold under the game's formats, as the deck
    check decides it (``decks.engine.model.FormatRules.exempt``, rule 1−2−3): a card of a
    format's ``exempt_card_type`` printed as a common, or a marked card where a format
    honours the mark. One query, only for a card marked or printed as a common (no format
    can exempt another). ``exempt``: any number in some format; else, for a marked card,
    ``navigators_only`` or ``types``: the names of the card types the formats do exempt
    (empty: none honours the mark)."""
    from decks.engine.model import CardInfo, FormatRules, PrintingInfo

    from .names import is_common

    rarities = [printing.rarity for printing in card.printings.all()]
    if not card.unlimited and not any(is_common(rarity) for rarity in rarities):
        return {"marked": False, "exempt": False}
    info = CardInfo(
        key=card.name_key,
        name=card.name,
        card_type=card.card_type,
        unlimited=card.unlimited,
        printings=tuple(PrintingInfo("", rarity=rarity) for rarity in rarities),
    )
    rules = list(card.game.formats.values_list("exempt_unlimited", "exempt_card_type"))
    if not rules:
        return {"marked": card.unlimited, "exempt": card.unlimited}
    if any(
        FormatRules(
            slug="", name="", game="", exempt_unlimited=honoured, exempt_card_type=card_type or None
        ).exempt(info)
        for honoured, card_type in rules
    ):
        return {"marked": card.unlimited, "exempt": True}
    codes = sorted({card_type for honoured, card_type in rules if honoured or card_type} - {""})
    labels = dict(CardType.choices)
    return {
        "marked": card.unlimited,
        "exempt": False,
        "navigators_only": codes == [CardType.NAVIGATOR],
        "types": ", ".join(str(labels.get(code, code)) for code in codes),
    }


def _query_without_page(request) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()
