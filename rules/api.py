"""Public, read-only rules API: search and sections by number."""

from __future__ import annotations

import django_filters
from django.db.models import Prefetch
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from cardpool.models import Game
from tournaments.api.schema import OneObjectSchema

from .messages import describe_flag
from .models import Section
from .selectors import KIND_CARD, KIND_RULING, KIND_SECTION, search_rules, section_path
from .text import number_key

SEARCH_PAGE_SIZE = 20
# Larger pages and ids would overflow the database's 64-bit integers (a 500); asking for
# them is a 400 naming the parameter.
MAX_PAGE = 1_000_000
MAX_ID = 2**63 - 1


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(
        max_length=200,
        help_text="Words in any mix of Japanese and English, a card name or a section "
        "number with any dash (4-3-8, 4−3−8, ４－３－８). Width and case are ignored.",
    )
    game = serializers.SlugRelatedField(
        slug_field="slug", queryset=Game.objects.all(), required=False, help_text="Game slug."
    )
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)


class SearchHitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=[KIND_SECTION, KIND_RULING, KIND_CARD])
    game = serializers.CharField(help_text="Game slug.")
    number = serializers.CharField(help_text="Section number as printed; empty otherwise.")
    title = serializers.CharField(help_text="Section title, ruling question or card name.")
    title_html = serializers.CharField(help_text="The title, HTML-escaped, matches in <mark>.")
    excerpt = serializers.CharField(
        source="excerpt_html",
        help_text="Text around the first match, HTML-escaped, matches in <mark>.",
    )
    status = serializers.CharField(help_text="Ruling status; empty for other kinds.")
    url = serializers.SerializerMethodField(help_text="The public page of the result.")
    id = serializers.IntegerField(source="object.pk")

    def get_url(self, hit) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(hit.url) if request else hit.url


class SearchResponseSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Per kind.")
    results = SearchHitSerializer(many=True)
    suggestions = serializers.ListField(
        child=serializers.CharField(),
        help_text="When nothing matches: close queries that find something, best first "
        '("did you mean"). Empty otherwise.',
    )


class RulesSearchViewSet(viewsets.ViewSet):
    """Ranked search over rulebook sections, rulings and cards."""

    permission_classes = [AllowAny]
    # The router's "list" route, but it answers one object: a page of hits with counts.
    schema = OneObjectSchema()

    @extend_schema(
        summary="Search the rules",
        description=(
            "Sections of the current rulebooks, rulings (superseded ones left out) and "
            "cards containing every word of the query, best first: the section with that "
            "number or a card with that exact name, exact titles, titles starting with "
            "the query, titles containing it, subsections of the number, then text "
            "matches. Width, case and hiragana/katakana are ignored, and words judges use "
            "also find the rulebook's words (制限時間 finds 時間制限, sideboard finds "
            "サイドボード). Pages of 20."
        ),
        parameters=[SearchQuerySerializer],
        responses=SearchResponseSerializer,
    )
    def list(self, request):
        params = SearchQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        game = params.validated_data.get("game")
        page = params.validated_data["page"]
        results = search_rules(
            params.validated_data["q"],
            game=game.slug if game else None,
            page=page,
            page_size=SEARCH_PAGE_SIZE,
        )
        url = request.build_absolute_uri()
        has_next = page * SEARCH_PAGE_SIZE < results.total
        data = {
            "count": results.total,
            "next": _with_page(url, page + 1) if has_next else None,
            "previous": _with_page(url, page - 1) if page > 1 else None,
            "counts": results.counts,
            "results": SearchHitSerializer(
                results.hits, many=True, context={"request": request}
            ).data,
            "suggestions": results.suggestions,
        }
        return Response(data)


def _with_page(url: str, page: int) -> str:
    return replace_query_param(url, "page", page)


class SectionFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(
        field_name="document__game__slug", help_text=_("Game slug, e.g. crossover.")
    )
    number = django_filters.CharFilter(
        method="filter_number", help_text=_("Section number with any dash: 4-3-8, 4−3−8.")
    )
    series = django_filters.CharFilter(
        field_name="document__series", help_text=_("Document series, e.g. rules or wiki.")
    )
    document = django_filters.NumberFilter(
        field_name="document_id",
        min_value=1,
        max_value=MAX_ID,
        help_text=_("A document (version) id; without it only current documents are listed."),
    )

    class Meta:
        model = Section
        fields = ["game", "number", "series", "document"]

    def filter_number(self, queryset, name, value):
        return queryset.filter(number_key=number_key(value))


class SectionRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Section
        fields = ["id", "number", "title"]


class SectionSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="document.game.slug")
    document = serializers.SerializerMethodField()
    parent = SectionRefSerializer(read_only=True, allow_null=True, help_text="Null at the top.")
    children = SectionRefSerializer(many=True, read_only=True)
    review = serializers.SerializerMethodField(
        help_text="Why a judge should check this section against the original."
    )
    url = serializers.SerializerMethodField()

    class Meta:
        model = Section
        fields = [
            "id",
            "game",
            "document",
            "number",
            "number_key",
            "title",
            "body",
            "level",
            "parent",
            "children",
            "needs_review",
            "review",
            "review_note",
            "url",
        ]

    def get_document(self, section) -> dict:
        document = section.document
        return {
            "id": document.pk,
            "series": document.series,
            "title": document.title,
            "version": document.version,
            "is_current": document.is_current,
        }

    def get_review(self, section) -> list[str]:
        return [describe_flag(flag) for flag in section.review_flags]

    def get_url(self, section) -> str:
        path = section_path(section, section.document)
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


@extend_schema_view(
    list=extend_schema(
        summary="Rulebook sections",
        description=(
            "Sections with body, parent and children. `?game=crossover&number=4-3-8` "
            "finds a section by number (a number printed twice gives two results). "
            "Only current documents unless `document` is given."
        ),
        parameters=[OpenApiParameter("number", str, description="e.g. 4-3-8")],
    ),
    retrieve=extend_schema(summary="One rulebook section"),
)
class SectionViewSet(viewsets.ReadOnlyModelViewSet):
    permission_classes = [AllowAny]
    serializer_class = SectionSerializer
    filterset_class = SectionFilter
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        children = Prefetch("children", queryset=Section.objects.order_by("order"))
        queryset = (
            Section.objects.select_related("document__game", "parent")
            .prefetch_related(children)
            .order_by("document__game__slug", "document_id", "order")
        )
        if self.action == "list" and not self.request.query_params.get("document"):
            queryset = queryset.filter(document__is_current=True)
        return queryset
