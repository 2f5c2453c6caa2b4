from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from cardpool.models import CardType, Element
from config.throttling import throttled

from . import services
from .engine.parser import split_lines
from .forms import CheckForm, DeckForm
from .selectors import decks_of

DECKS_PAGE_SIZE = 50  # as the card list (cardpool/views.py) and the API's pages


# The API's deck check counts with the same classes (decks/api.py): one budget per client
# whichever door the decklist comes through.
@throttled(AnonRateThrottle, UserRateThrottle)
def check_deck(request):
    """Paste a decklist and see the report; htmx re-posts the form as the player types."""
    form = CheckForm(request.POST or None, initial={"format": "crossover"})
    report = None
    if request.method == "POST" and form.is_valid():
        report = services.check_text(
            form.cleaned_data["decklist"], form.cleaned_data["format"], form.cleaned_data["as_of"]
        )
    context = {
        "form": form,
        "report": report,
        "format": form.cleaned_data["format"] if report else None,
        "lines": _report_lines(form, report),
        "type_counts": _labelled(report.by_type, CardType, _("unknown type")) if report else [],
        "element_counts": _labelled(report.by_element, Element, _("no element")) if report else [],
    }
    if request.headers.get("HX-Request") == "true":
        return render(request, "decks/_report.html", context)
    return render(request, "decks/check.html", context)


def _labelled(counts, choices, missing_label):
    """(label, count) pairs in the reader's language; engine codes not in ``choices`` (the
    engine's "unknown"/"none") get ``missing_label``."""
    labels = dict(choices.choices)
    return [(labels.get(code, missing_label), count) for code, count in counts.items()]


def _report_lines(form, report):
    """Each decklist line with the violations that concern it, for showing side by side."""
    if report is None:
        return []
    text = form.cleaned_data["decklist"]
    by_line = report.violations_by_line()
    rows = []
    for number, raw in enumerate(split_lines(text), start=1):
        if raw.strip() or number in by_line:
            rows.append(
                {
                    "number": number,
                    "text": raw,
                    "violations": by_line.get(number, []),
                }
            )
    return rows


@login_required
@require_safe
def deck_list(request):
    page = Paginator(decks_of(request.user), DECKS_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "decks/deck_list.html", {"decks": page.object_list, "page": page})


@login_required
@require_safe
def deck_detail(request, pk: int):
    deck = get_object_or_404(decks_of(request.user), pk=pk)
    latest = deck.check_history[0] if deck.check_history else None
    return render(
        request,
        "decks/deck_detail.html",
        {"deck": deck, "latest": latest, "text": services.deck_text(_entries(deck))},
    )


@login_required
def deck_edit(request, pk: int | None = None):
    deck = get_object_or_404(decks_of(request.user), pk=pk) if pk is not None else None
    initial = {"format": "crossover"}
    if deck is not None:
        initial = {
            "name": deck.name,
            "format": deck.format.slug,
            "decklist": services.deck_text(_entries(deck)),
        }
    form = DeckForm(request.POST or None, initial=initial)
    problems = []
    if request.method == "POST" and form.is_valid():
        try:
            deck, report = services.save_deck(
                owner=request.user,
                fmt=form.cleaned_data["format"],
                name=form.cleaned_data["name"],
                text=form.cleaned_data["decklist"],
                deck=deck,
            )
        except services.DeckNotStorable as error:
            problems = error.problems
            form.add_error("decklist", _("Some lines name no known card; fix them to save."))
        except services.TooManyDecks as error:
            form.add_error(None, error.message)
        else:
            if report.legal:
                messages.success(request, _("Saved. The deck is legal."))
            else:
                messages.warning(request, _("Saved, but the deck is not legal yet."))
            return redirect("decks:deck_detail", pk=deck.pk)
    return render(
        request, "decks/deck_form.html", {"form": form, "deck": deck, "problems": problems}
    )


@login_required
@require_POST
def deck_duplicate(request, pk: int):
    deck = get_object_or_404(decks_of(request.user), pk=pk)
    try:
        copy = services.duplicate_deck(deck, owner=request.user)
    except services.TooManyDecks as error:
        messages.error(request, error.message)
        return redirect("decks:deck_detail", pk=deck.pk)
    messages.success(request, _("Copied as “%s”.") % copy.name)
    return redirect("decks:deck_detail", pk=copy.pk)


@login_required
def deck_delete(request, pk: int):
    deck = get_object_or_404(decks_of(request.user), pk=pk)
    if request.method == "POST":
        services.delete_deck(deck)
        messages.success(request, _("Deleted “%s”.") % deck.name)
        return redirect("decks:deck_list")
    return render(request, "decks/deck_confirm_delete.html", {"deck": deck})


@login_required
@require_safe
def deck_export(request, pk: int):
    deck = get_object_or_404(decks_of(request.user), pk=pk)
    response = HttpResponse(
        services.deck_text(_entries(deck)), content_type="text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="deck-{deck.pk}.txt"'
    return response


def _entries(deck):
    return deck.entries.select_related("card", "printing_set")
