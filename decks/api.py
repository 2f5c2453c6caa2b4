from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import get_language
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from tournaments.api.limits import ModelCharField
from tournaments.api.serializers import ErrorSerializer
from tournaments.services.errors import InvalidInput

from . import services
from .forms import MAX_DECKLIST_CHARS
from .models import Deck, Format
from .selectors import decks_of


class FormatField(serializers.SlugRelatedField):
    def __init__(self, **kwargs):
        super().__init__(
            slug_field="slug", queryset=Format.objects.select_related("game"), **kwargs
        )


class CheckRequestSerializer(serializers.Serializer):
    format = FormatField()
    decklist = serializers.CharField(max_length=MAX_DECKLIST_CHARS, trim_whitespace=False)
    as_of = serializers.DateField(required=False, help_text="Defaults to today.")


class ViolationSerializer(serializers.Serializer):
    code = serializers.CharField()
    rule = serializers.CharField()
    message = serializers.CharField(help_text="In the request's language (Accept-Language).")
    message_en = serializers.CharField()
    message_ja = serializers.CharField()
    cards = serializers.ListField(child=serializers.CharField())
    lines = serializers.ListField(child=serializers.IntegerField())
    details = serializers.DictField()


class ReportSerializer(serializers.Serializer):
    format = serializers.CharField()
    format_version = serializers.IntegerField()
    as_of = serializers.DateField()
    legal = serializers.BooleanField()
    main_count = serializers.IntegerField()
    sideboard_count = serializers.IntegerField()
    by_type = serializers.DictField(child=serializers.IntegerField())
    by_element = serializers.DictField(child=serializers.IntegerField())
    violations = ViolationSerializer(many=True)
    notices = serializers.ListField(child=serializers.DictField())


class DeckEntrySerializer(serializers.Serializer):
    card = serializers.CharField(source="card.name")
    card_id = serializers.IntegerField()
    printing_set = serializers.CharField(
        source="printing_set.code",
        default=None,
        allow_null=True,
        help_text="Set code of a chosen printing; null when any printing will do.",
    )
    count = serializers.IntegerField()
    section = serializers.CharField()


class DeckSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = ModelCharField(Deck, "name")
    format = FormatField()
    decklist = serializers.CharField(
        max_length=MAX_DECKLIST_CHARS, trim_whitespace=False, write_only=True
    )
    text = serializers.SerializerMethodField()
    entries = DeckEntrySerializer(many=True, read_only=True)
    last_check = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)

    def get_text(self, deck) -> str:
        return services.deck_text(deck.entries.all())

    def get_last_check(self, deck) -> dict | None:
        history = getattr(deck, "check_history", None)
        latest = history[0] if history else deck.checks.first()
        return latest.report if latest else None

    def save_deck(self, deck=None):
        try:
            deck, _report = services.save_deck(
                owner=self.context["request"].user,
                fmt=self.validated_data["format"],
                name=self.validated_data["name"],
                text=self.validated_data["decklist"],
                deck=deck,
            )
        except services.TooManyDecks as error:
            raise InvalidInput(error.code, error.message, limit=error.limit) from None
        except services.DeckNotStorable as error:
            raise serializers.ValidationError(
                {
                    "decklist": [
                        f"line {', '.join(map(str, v.lines))}: {v.code}: {v.message_en}"
                        for v in error.problems
                    ]
                }
            ) from None
        return deck


@extend_schema(tags=["decks"])
class DeckViewSet(viewsets.GenericViewSet):
    """Your own stored decks, newest first in pages of 50. Another player's deck is
    answered with 404. One account keeps at most ``DECKS_PER_USER`` decks: one more is
    refused with 400 ``too_many_decks``."""

    permission_classes = [IsAuthenticated]
    serializer_class = DeckSerializer
    lookup_value_regex = "[0-9]+"
    filter_backends = []

    def get_queryset(self):
        return decks_of(self.request.user).prefetch_related(
            "entries__card", "entries__printing_set"
        )

    def _get(self, pk):
        return get_object_or_404(self.get_queryset(), pk=pk)

    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        data = DeckSerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)

    def retrieve(self, request, pk=None):
        return Response(DeckSerializer(self._get(pk), context={"request": request}).data)

    @extend_schema(
        responses={
            201: DeckSerializer,
            400: OpenApiResponse(
                response=ErrorSerializer,
                description="`invalid_input` (field errors in `details.fields`) or "
                "`too_many_decks` (the account keeps `details.limit` decks already).",
            ),
        }
    )
    def create(self, request):
        serializer = DeckSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        deck = serializer.save_deck()
        return Response(
            DeckSerializer(self._get(deck.pk), context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )

    def update(self, request, pk=None):
        deck = self._get(pk)
        serializer = DeckSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        serializer.save_deck(deck)
        return Response(DeckSerializer(self._get(deck.pk), context={"request": request}).data)

    def destroy(self, request, pk=None):
        services.delete_deck(self._get(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        request=CheckRequestSerializer,
        responses={
            200: ReportSerializer,
            400: OpenApiResponse(
                response=ErrorSerializer,
                description="Field errors, e.g. an unknown format.",
            ),
            429: OpenApiResponse(response=ErrorSerializer, description="Too many requests."),
        },
        summary="Check a decklist",
        description="Anyone may check a deck; anonymous use is throttled.",
    )
    @action(
        detail=False,
        methods=["post"],
        permission_classes=[AllowAny],
        throttle_classes=[AnonRateThrottle, UserRateThrottle],
    )
    def check(self, request):
        serializer = CheckRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        report = services.check_text(
            data["decklist"], data["format"], data.get("as_of") or timezone.localdate()
        )
        return Response(report.as_dict(language=get_language()))
