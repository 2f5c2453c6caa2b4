from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from rules.selectors import cards_with_rules, current_card_text, latest_erratum, rulings_for_card

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
        },
    )


def _query_without_page(request) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()
