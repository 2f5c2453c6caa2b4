"""Public rules pages: documents, sections, rulings, cards, search and the calculator."""

from __future__ import annotations

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from . import calculator_examples
from .calculator import CalculatorError, resolve
from .calculator_text import describe_outcome
from .forms import (
    CharacterForm,
    EffectFormSet,
    SearchForm,
    effect_initial,
)
from .messages import describe_flag
from .models import MAIN_SERIES, RulesDocument, Ruling, Section
from .selectors import (
    cards_with_rules,
    current_card_text,
    current_document,
    current_documents,
    document_tree,
    every_current_document,
    latest_erratum,
    rulings_for_card,
    search_rules,
    section_page,
)
from .text import number_key

SEARCH_PAGE_SIZE = 20


@require_safe
def index(request):
    return render(request, "rules/index.html", {"documents": every_current_document()})


@require_safe
def document(request, game: str):
    """A document's section tree: the game's current rulebook, another series
    (``?series=wiki``) or an older version (``?version=<id>``)."""
    series = current_documents(game)
    current = current_document(game, request.GET.get("series"))
    shown = current
    if version := request.GET.get("version"):
        if not version.isdigit():
            raise Http404
        shown = get_object_or_404(
            RulesDocument.objects.select_related("game"),
            game=current.game,
            series=current.series,
            pk=version,
        )
    versions = RulesDocument.objects.filter(game=current.game, series=current.series).only(
        "id", "version", "date", "imported_at", "is_current", "game_id", "series"
    )
    return render(
        request,
        "rules/document.html",
        {
            "document": shown,
            "current": current,
            "tree": document_tree(shown),
            "versions": versions,
            "series": series,
        },
    )


@require_safe
def section(request, game: str, number: str):
    page = section_page(current_document(game), number=number)
    if page is None:
        raise Http404
    return _render_section(request, page)


@require_safe
def section_by_id(request, game: str, pk: int):
    """Any section, also of an older version (unnumbered sections are linked this way)."""
    owner = get_object_or_404(
        Section.objects.select_related("document__game").only(
            "id", "document__id", "document__game__slug"
        ),
        pk=pk,
        document__game__slug=game,
    )
    page = section_page(owner.document, pk=pk)
    return _render_section(request, page)


def _render_section(request, page):
    entries = [
        {
            "section": section,
            "ancestors": page.ancestors[section.pk],
            "children": page.children[section.pk],
            "rulings": page.rulings[section.pk],
            "flags": [describe_flag(flag) for flag in section.review_flags],
        }
        for section in page.sections
    ]
    return render(
        request,
        "rules/section.html",
        {"document": page.document, "entries": entries, "first": page.sections[0]},
    )


@require_safe
def ruling(request, pk: int):
    found = get_object_or_404(
        Ruling.objects.select_related("game", "superseded_by").prefetch_related(
            "cards", "sections__document", "supersedes"
        ),
        pk=pk,
    )
    return render(request, "rules/ruling.html", {"ruling": found})


@require_safe
def card(request, pk: int):
    """A card as judges need it: its current text (newest erratum), errata and rulings."""
    found = get_object_or_404(cards_with_rules(), pk=pk)
    errata = sorted(found.errata.all(), key=lambda item: (item.date, item.pk), reverse=True)
    return render(
        request,
        "rules/card.html",
        {
            "card": found,
            "current_text": current_card_text(found),
            "erratum": latest_erratum(found),
            "errata": errata,
            "rulings": rulings_for_card(found),
        },
    )


@require_safe
def search(request):
    form = SearchForm(request.GET or None)
    results = None
    page = request.GET.get("page", "1")
    page = int(page) if page.isdigit() and int(page) > 0 else 1
    if form.is_valid() and form.cleaned_data["q"].strip():
        game = form.cleaned_data["game"]
        results = search_rules(
            form.cleaned_data["q"],
            game=game.slug if game else None,
            page=page,
            page_size=SEARCH_PAGE_SIZE,
        )
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "results": results,
        "suggestions": _suggestion_links(query, results.suggestions if results else []),
        "page": page,
        "has_next": results is not None and page * SEARCH_PAGE_SIZE < results.total,
        "query": query.urlencode(),
    }
    if request.headers.get("HX-Request") == "true":
        return render(request, "rules/_search_results.html", context)
    return render(request, "rules/search.html", context)


def _suggestion_links(query, suggestions: list[str]) -> list[tuple[str, str]]:
    """Each suggested query with the search page's address for it (same game filter)."""
    links = []
    for suggestion in suggestions:
        params = query.copy()
        params["q"] = suggestion
        links.append((suggestion, f"{reverse('rules:search')}?{params.urlencode()}"))
    return links


@require_safe
def calculator(request):
    if slug := request.GET.get("example"):
        example = calculator_examples.EXAMPLES.get(slug)
        if example is None:
            raise Http404
        return HttpResponseRedirect(
            f"{reverse('rules:calculator')}?{urlencode(_example_data(example), doseq=True)}"
        )
    data = request.GET.copy() if "name" in request.GET else None
    if data is not None and "add_effect" in data:
        total = data.get("form-TOTAL_FORMS", "0")
        data["form-TOTAL_FORMS"] = str(int(total) + 1 if total.isdigit() else 1)
    character_form = CharacterForm(data)
    effect_formset = EffectFormSet(data)
    outcome = None
    error = None
    if data is not None and character_form.is_valid() and effect_formset.is_valid():
        try:
            outcome = resolve(
                character_form.printed_state(),
                effect_formset.effects(),
                character_form.cleaned_data["damage"],
            )
        except CalculatorError as exc:
            error = str(exc)
    return render(
        request,
        "rules/calculator.html",
        {
            "character_form": character_form,
            "effect_formset": effect_formset,
            "outcome": outcome,
            "report": describe_outcome(outcome) if outcome else None,
            "error": error,
            "name": character_form.cleaned_data.get("name") if outcome else "",
            "examples": calculator_examples.EXAMPLES.values(),
            "row_errors": effect_formset.row_errors() if data is not None else [],
            "rule_links": calculator_rule_links(),
        },
    )


# The rulebook sections the calculator follows (CrossOver Basic Rules, 4−3−8 and 4−3−9).
CALCULATOR_SECTIONS = ("4−3−8", "4−3−9")


def calculator_rule_links() -> list[dict]:
    """The calculator's rule sections, each with its page's URL when the CrossOver
    rulebook on this site has that section, else ``None`` (the rulebook is imported only
    by ``import_rules``; before that the numbers are shown without a link). One query."""
    keys = {number_key(number): number for number in CALCULATOR_SECTIONS}
    found = set(
        Section.objects.filter(
            document__game__slug="crossover",
            document__series=MAIN_SERIES,
            document__is_current=True,
            number_key__in=keys,
        ).values_list("number_key", flat=True)
    )
    return [
        {
            "number": number,
            "url": reverse("rules:section", args=["crossover", key]) if key in found else None,
        }
        for key, number in keys.items()
    ]


def _example_data(example) -> dict:
    printed = example.printed
    data = {
        "name": example.name,
        "card_type": printed.card_type,
        "gender": printed.gender or "",
        "ap": printed.ap,
        "dp": printed.dp,
        "abilities": "\n".join(printed.abilities),
        "damage": example.damage,
        "form-TOTAL_FORMS": len(example.effects) + 1,
        "form-INITIAL_FORMS": 0,
    }
    for index, effect in enumerate(example.effects):
        for key, value in effect_initial(effect).items():
            if value is None or value is False or value in ("", []):
                continue
            data[f"form-{index}-{key}"] = "on" if value is True else value
    return data
