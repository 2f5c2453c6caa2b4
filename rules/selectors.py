"""Reads of the rules app shared by the pages, the API and the admin."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from operator import and_, or_

from django.db import connection
from django.db.models import (
    Case,
    F,
    IntegerField,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
)
from django.http import Http404
from django.urls import reverse

from cardpool.models import Card, Printing

from .models import MAIN_SERIES, Erratum, RulesDocument, Ruling, RulingStatus, Section
from .search import (
    Query,
    Tier,
    excerpt,
    highlight,
    index_terms,
    name_variants,
    parse_query,
    suggest,
)
from .text import number_key

# --- documents and sections ---------------------------------------------------------------


def _main_series_first(field_name: str = "series") -> Case:
    return Case(When(**{field_name: MAIN_SERIES}, then=Value(0)), default=Value(1))


def every_current_document() -> QuerySet[RulesDocument]:
    """The current version of every document series, by game, each game's rulebook first
    (so an imported rulebook is listed before the demo procedures or a wiki summary)."""
    return (
        RulesDocument.objects.select_related("game")
        .filter(is_current=True)
        .order_by("game__name", _main_series_first(), "series")
    )


def current_documents(game_slug: str) -> QuerySet[RulesDocument]:
    """The current version of each document series of a game, the rulebook first."""
    return (
        RulesDocument.objects.select_related("game")
        .filter(game__slug=game_slug, is_current=True)
        .order_by(_main_series_first(), "series")
    )


def current_document(game_slug: str, series: str | None = None) -> RulesDocument:
    """The current version of a game's rulebook (or of ``series``), or 404."""
    documents = current_documents(game_slug)
    if series:
        documents = documents.filter(series=series)
    document = documents.first()
    if document is None:
        raise Http404
    return document


def section_path(section: Section, document: RulesDocument) -> str:
    """The public URL of a section: by number for the current rulebook (links that
    survive re-imports), by id otherwise."""
    game = document.game.slug
    if section.number_key and document.is_current and document.series == MAIN_SERIES:
        return reverse("rules:section", args=[game, section.number_key])
    return reverse("rules:section_by_id", args=[game, section.pk])


def document_tree(document: RulesDocument) -> list[Section]:
    """The top-level sections of a document, each with ``tree_children`` (recursively),
    from one query."""
    sections = list(document.sections.order_by("order").defer("body", "search_text"))
    by_id = {section.pk: section for section in sections}
    for section in sections:
        section.tree_children = []
    roots = []
    for section in sections:
        parent = by_id.get(section.parent_id)
        (parent.tree_children if parent else roots).append(section)
    return roots


@dataclass
class SectionPage:
    """Everything the section page shows, for one number (the rulebook prints some
    numbers twice, so there may be several sections)."""

    document: RulesDocument
    sections: list[Section]
    ancestors: dict[int, list[Section]] = field(default_factory=dict)
    children: dict[int, list[Section]] = field(default_factory=dict)
    rulings: dict[int, list[Ruling]] = field(default_factory=dict)


def section_page(document: RulesDocument, *, number: str | None = None, pk: int | None = None):
    """The sections numbered ``number`` (any dash) or the section ``pk`` of ``document``,
    with their ancestors, children and the rulings citing them. ``None`` if none."""
    outline = list(document.sections.order_by("order").defer("body", "search_text"))
    by_id = {section.pk: section for section in outline}
    if pk is not None:
        wanted = [pk] if pk in by_id else []
    else:
        key = number_key(number or "")
        wanted = [section.pk for section in outline if key and section.number_key == key]
    if not wanted:
        return None
    sections = list(document.sections.filter(pk__in=wanted).order_by("order"))
    page = SectionPage(document=document, sections=sections)
    for section in sections:
        chain = []
        parent = by_id.get(section.parent_id)
        while parent is not None:
            chain.append(parent)
            parent = by_id.get(parent.parent_id)
        page.ancestors[section.pk] = list(reversed(chain))
        page.children[section.pk] = [s for s in outline if s.parent_id == section.pk]
        page.rulings[section.pk] = []
    for ruling in rulings_citing(sections, document):
        for section in sections:
            if section.pk in ruling.cited_section_ids or (
                section.number_key and section.number_key in ruling.cited_keys
            ):
                page.rulings[section.pk].append(ruling)
    return page


def rulings_citing(sections: list[Section], document: RulesDocument) -> list[Ruling]:
    """Rulings that cite these sections of ``document``, or a section with the same
    number in another version of that document (rulings outlive re-imports). Superseded
    ones last. Each ruling gets ``cited_section_ids`` and ``cited_keys``."""
    if not sections:
        return []
    keys = {section.number_key for section in sections if section.number_key}
    condition = Q(sections__in=sections)
    if keys:
        condition |= Q(
            sections__document__game_id=document.game_id,
            sections__document__series=document.series,
            sections__number_key__in=keys,
        )
    rulings = list(_ruling_queryset().filter(condition).distinct().order_by(*_RULING_ORDER))
    for ruling in rulings:
        cited = ruling.sections.all()
        ruling.cited_section_ids = {section.pk for section in cited}
        ruling.cited_keys = {section.number_key for section in cited if section.number_key}
    return rulings


# --- rulings, errata and the card's current text -------------------------------------------

_RULING_ORDER = (
    Case(When(status=RulingStatus.SUPERSEDED, then=Value(1)), default=Value(0)),
    F("date").desc(nulls_last=True),
    "-id",
)


def _ruling_queryset() -> QuerySet[Ruling]:
    return Ruling.objects.select_related("game", "superseded_by").prefetch_related(
        "cards", Prefetch("sections", queryset=Section.objects.select_related("document"))
    )


def rulings_for_card(card: Card) -> list[Ruling]:
    """The rulings about a card, superseded ones last."""
    return list(_ruling_queryset().filter(cards=card).order_by(*_RULING_ORDER))


def cards_with_rules() -> QuerySet[Card]:
    """Cards with game, printings (with sets) and errata loaded, for current_card_text."""
    printings = Prefetch("printings", queryset=Printing.objects.select_related("set"))
    return Card.objects.select_related("game").prefetch_related(printings, "errata")


def current_card_text(card: Card) -> str:
    """The text a card plays with: its newest erratum's, otherwise its newest printing's
    (rule 1−2−1). Uses prefetched ``errata`` and ``printings`` when present
    (:func:`cards_with_rules`); otherwise two queries."""
    erratum = latest_erratum(card)
    return erratum.new_text if erratum is not None else card.current_text


def latest_erratum(card: Card) -> Erratum | None:
    return max(card.errata.all(), key=lambda erratum: (erratum.date, erratum.pk), default=None)


# --- search ------------------------------------------------------------------------------------

KIND_CARD = "card"
KIND_RULING = "ruling"
KIND_SECTION = "section"
# Within a tier: the card itself, then rulings, then rulebook sections.
_KIND_ORDER = {KIND_CARD: 0, KIND_RULING: 1, KIND_SECTION: 2}


def _all_groups(field_name: str, query: Query) -> Q:
    """Every group of the query, one of its alternatives each (on search keys)."""
    return reduce(
        and_,
        (
            reduce(or_, (Q(**{f"{field_name}__contains": alt}) for alt in group))
            for group in query.groups
        ),
    )


def _any_of(lookup: str, values: tuple[str, ...]) -> Q:
    return reduce(or_, (Q(**{lookup: value}) for value in values))


def _all_name_terms(field_name: str, query: Query) -> Q:
    """Every term in a card's name key, in the kana typed or the other one."""
    return reduce(
        and_, (_any_of(f"{field_name}__contains", name_variants(term)) for term in query.terms)
    )


def search_sections(queryset: QuerySet[Section], query: Query) -> QuerySet[Section]:
    """Sections containing every term, annotated with ``search_tier``."""
    if not query:
        return queryset.none()
    whens = []
    if query.number:
        whens.append(When(number_key=query.number, then=Value(Tier.EXACT_NUMBER)))
    whens += [
        When(search_title__in=query.phrases, then=Value(Tier.EXACT_TITLE)),
        When(_any_of("search_title__startswith", query.phrases), then=Value(Tier.TITLE_PREFIX)),
        When(_all_groups("search_title", query), then=Value(Tier.IN_TITLE)),
    ]
    if query.number:
        whens.append(When(number_key__startswith=f"{query.number}-", then=Value(Tier.SUBSECTION)))
    return queryset.filter(_all_groups("search_text", query)).annotate(
        search_tier=Case(*whens, default=Value(Tier.IN_TEXT), output_field=IntegerField())
    )


def search_rulings(queryset: QuerySet[Ruling], query: Query) -> QuerySet[Ruling]:
    if not query:
        return queryset.none()
    return queryset.filter(_all_groups("search_text", query)).annotate(
        search_tier=Value(Tier.IN_TEXT, output_field=IntegerField())
    )


def search_cards(queryset: QuerySet[Card], query: Query) -> QuerySet[Card]:
    """Cards whose name contains every term (cardpool's search key: the same folding
    without the dash rule, which names do not need, and without kana folding, so each
    term is tried as typed, in hiragana and in katakana). No word list: names are
    names."""
    if not query.terms:
        return queryset.none()
    phrases = name_variants(query.phrase)
    return queryset.filter(_all_name_terms("search_key", query)).annotate(
        search_tier=Case(
            When(search_key__in=phrases, then=Value(Tier.EXACT_NUMBER)),
            When(_any_of("search_key__startswith", phrases), then=Value(Tier.TITLE_PREFIX)),
            default=Value(Tier.IN_TITLE),
            output_field=IntegerField(),
        )
    )


def _similarity_order(queryset: QuerySet, field_name: str, query: Query):
    """On PostgreSQL, rank within a tier by pg_trgm similarity to the query."""
    if connection.vendor != "postgresql":
        return queryset, []
    from django.contrib.postgres.search import TrigramSimilarity

    queryset = queryset.annotate(
        search_similarity=TrigramSimilarity(field_name, Value(query.phrases[0]))
    )
    return queryset, [F("search_similarity").desc()]


@dataclass
class SearchHit:
    kind: str
    tier: int
    object: Section | Ruling | Card
    game: str  # slug
    number: str = ""
    title: str = ""
    title_html: str = ""
    excerpt_html: str = ""
    url: str = ""
    status: str = ""


@dataclass
class SearchResults:
    query: Query
    hits: list[SearchHit]
    total: int
    counts: dict[str, int]
    # When nothing matches: queries that find something, closest first ("did you mean").
    suggestions: list[str] = field(default_factory=list)


def search_rules(
    raw_query: str, *, game: str | None = None, page: int = 1, page_size: int = 20
) -> SearchResults:
    """Sections of current documents, rulings (not superseded) and cards matching the
    query, best first, one page of them with highlighted titles and excerpts.

    Two steps: the ids and tiers of every match (one query per kind), then the objects
    of the page (one query per kind, plus the card texts).
    """
    query = parse_query(raw_query)
    if not query:
        return SearchResults(query, [], 0, {KIND_SECTION: 0, KIND_RULING: 0, KIND_CARD: 0})

    sections, rulings, cards = _searched(game)

    sections, section_similarity = _similarity_order(
        search_sections(sections, query), "search_title", query
    )
    section_ids = sections.order_by(
        "search_tier",
        *section_similarity,
        "document__game__slug",
        _main_series_first("document__series"),
        "document__series",
        "order",
    ).values_list("id", "search_tier")
    rulings = search_rulings(rulings, query)
    ruling_ids = rulings.order_by(*_RULING_ORDER).values_list("id", "search_tier")
    card_ids = (
        search_cards(cards, query)
        .order_by("search_tier", "name_key", "id")
        .values_list("id", "search_tier")
    )

    ranked: list[tuple[int, int, int, str, int]] = []
    for kind, rows in (
        (KIND_SECTION, section_ids),
        (KIND_RULING, ruling_ids),
        (KIND_CARD, card_ids),
    ):
        ranked.extend(
            (tier, _KIND_ORDER[kind], position, kind, pk)
            for position, (pk, tier) in enumerate(rows)
        )
    ranked.sort()
    if not ranked:
        suggestions = search_suggestions(raw_query, game=game)
        return SearchResults(query, [], 0, dict.fromkeys(_KIND_ORDER, 0), suggestions)
    counts = dict.fromkeys(_KIND_ORDER, 0)
    for *_rank, kind, _pk in ranked:
        counts[kind] += 1
    start = (max(page, 1) - 1) * page_size
    window = ranked[start : start + page_size]
    wanted: dict[str, list[int]] = {kind: [] for kind in _KIND_ORDER}
    for *_rank, kind, pk in window:
        wanted[kind].append(pk)
    objects = _load_hits(wanted)
    hits = [_hit(kind, tier, objects[kind][pk], query) for tier, _k, _p, kind, pk in window]
    return SearchResults(query=query, hits=hits, total=len(ranked), counts=counts)


# Suggestions checked against the database at most (each check is three small queries).
_SUGGESTIONS = 3
# Longer queries get no suggestion: one word is checked per word, and a typo is found
# in a word, not in a paragraph (this bounds the work a pasted text can cause).
_SUGGEST_WORDS = 4
_SUGGEST_CHARACTERS = 40


def search_suggestions(raw_query: str, *, game: str | None = None) -> list[str]:
    """Queries close to ``raw_query`` that find something, for a search that found
    nothing: the terms of the index (section titles of the current documents, their
    pieces, the word list) nearest to the query, or, for a query of several words, the
    query with each word that finds nothing replaced by its nearest term."""
    words = raw_query.split()
    if len(words) > _SUGGEST_WORDS or len("".join(words)) > _SUGGEST_CHARACTERS:
        return []
    titles = Section.objects.filter(document__is_current=True)
    if game:
        titles = titles.filter(document__game__slug=game)
    candidates = index_terms(titles.values_list("title", flat=True))
    if len(words) > 1:
        corrected = []
        for word in words:
            if _finds_anything(word, game):
                corrected.append(word)
            else:
                nearest = suggest(word, candidates, limit=1)
                corrected.append(nearest[0] if nearest else word)
        if corrected != words and _finds_anything(" ".join(corrected), game):
            return [" ".join(corrected)]
        return []
    found = []
    for suggestion in suggest(raw_query, candidates, limit=_SUGGESTIONS):
        if _finds_anything(suggestion, game):
            found.append(suggestion)
    return found


def _searched(game: str | None):
    """What a search looks in: current rulebook sections, rulings in force and cards, of
    ``game`` when given."""
    sections = Section.objects.filter(document__is_current=True)
    rulings = Ruling.objects.exclude(status=RulingStatus.SUPERSEDED)
    cards = Card.objects.all()
    if game:
        sections = sections.filter(document__game__slug=game)
        rulings = rulings.filter(game__slug=game)
        cards = cards.filter(game__slug=game)
    return sections, rulings, cards


def _finds_anything(raw_query: str, game: str | None) -> bool:
    query = parse_query(raw_query)
    if not query:
        return False
    sections, rulings, cards = _searched(game)
    return (
        search_sections(sections, query).exists()
        or search_rulings(rulings, query).exists()
        or search_cards(cards, query).exists()
    )


def _load_hits(wanted: dict[str, list[int]]) -> dict[str, dict[int, object]]:
    loaded: dict[str, dict[int, object]] = {kind: {} for kind in wanted}
    if wanted[KIND_SECTION]:
        loaded[KIND_SECTION] = Section.objects.select_related("document__game").in_bulk(
            wanted[KIND_SECTION]
        )
    if wanted[KIND_RULING]:
        loaded[KIND_RULING] = Ruling.objects.select_related("game").in_bulk(wanted[KIND_RULING])
    if wanted[KIND_CARD]:
        loaded[KIND_CARD] = cards_with_rules().in_bulk(wanted[KIND_CARD])
    return loaded


def _hit(kind: str, tier: int, obj, query: Query) -> SearchHit:
    marks = query.marks
    if kind == KIND_SECTION:
        return SearchHit(
            kind=kind,
            tier=tier,
            object=obj,
            game=obj.document.game.slug,
            number=obj.number,
            title=obj.title,
            title_html=highlight(obj.title, marks),
            excerpt_html=excerpt(obj.body, marks),
            url=section_path(obj, obj.document),
        )
    if kind == KIND_RULING:
        return SearchHit(
            kind=kind,
            tier=tier,
            object=obj,
            game=obj.game.slug,
            title=str(obj),
            title_html=excerpt(obj.question, marks, width=80),
            excerpt_html=excerpt(obj.answer, marks),
            url=reverse("rules:ruling", args=[obj.pk]),
            status=obj.status,
        )
    return SearchHit(
        kind=kind,
        tier=tier,
        object=obj,
        game=obj.game.slug,
        title=obj.name,
        title_html=highlight(obj.name, query.terms),
        excerpt_html=excerpt(current_card_text(obj), marks),
        url=reverse("rules:card", args=[obj.pk]),
    )
