from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
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
    newest, newest_reason = newest_with_reason(card.printings.all(), key=printing_key)
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
    """How many copies of ``card`` a deck may hold, as the game's formats read its "any
    number" mark (rule 1−2−3): a format may honour the mark only for one card type
    (``Format.exempt_card_type``; common navigators in CrossOver). One query, only for a
    marked card. ``exempt``: any number in some format; else ``navigators_only`` or
    ``types``: the names of the card types the formats do exempt (empty: none honours the
    mark)."""
    if not card.unlimited:
        return {"marked": False, "exempt": False}
    rules = list(card.game.formats.values_list("exempt_unlimited", "exempt_card_type"))
    honoured = [card_type for exempt, card_type in rules if exempt]
    if not rules or any(not card_type or card_type == card.card_type for card_type in honoured):
        return {"marked": True, "exempt": True}
    codes = sorted(set(honoured))
    labels = dict(CardType.choices)
    return {
        "marked": True,
        "exempt": False,
        "navigators_only": codes == [CardType.NAVIGATOR],
        "types": ", ".join(str(labels.get(code, code)) for code in codes),
    }


def _query_without_page(request) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()
