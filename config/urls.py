from django.contrib import admin
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.urls import include, path
from django.views import defaults
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from cardpool.api import CardViewSet
from config.health import healthz, readyz
from decks.api import DeckViewSet
from rules.api import RulesSearchViewSet, SectionViewSet
from tournaments.accounts import signup
from tournaments.api.exports import register_routes as register_export_routes
from tournaments.api.views import register_routes as register_event_routes
from tournaments.api.views import request_too_large
from tournaments.views_claim import claim_account
from tournaments.views_home import home
from tournaments.views_tokens import account_urlpatterns as token_urlpatterns
from tournaments.views_venue import venue_poster


def _api_error(code: str, message: str, status: int, details: dict | None = None) -> JsonResponse:
    """The API's one error shape (tournaments.api.views.exception_handler) for errors that
    happen before any API view runs: no route matched, a request Django refuses before
    the view (a body too large or with too many fields), or an unhandled exception."""
    return JsonResponse({"code": code, "message": message, "details": details or {}}, status=status)


def handler400(request, exception):
    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            code, message, details, status = request_too_large()
            return _api_error(code, message, status, details)
        return _api_error("bad_request", "bad request", 400)
    return defaults.bad_request(request, exception)


def handler404(request, exception):
    if request.path.startswith("/api/"):
        return _api_error("not_found", "not found", 404)
    return defaults.page_not_found(request, exception)


def handler500(request):
    if request.path.startswith("/api/"):
        return _api_error("server_error", "internal server error", 500)
    return defaults.server_error(request)


router = DefaultRouter()
router.register("cards", CardViewSet, basename="card")
router.register("decks", DeckViewSet, basename="deck")
router.register("rules/search", RulesSearchViewSet, basename="rules-search")
router.register("rules/sections", SectionViewSet, basename="rules-section")
register_event_routes(router)
register_export_routes(router)

urlpatterns = [
    path("", home, name="home"),
    path("cards/", include("cardpool.urls")),
    path("decks/", include("decks.urls")),
    path("rules/", include("rules.urls")),
    path("events/", include("tournaments.urls")),
    path("accounts/signup/", signup, name="signup"),
    path("accounts/tokens/", include(token_urlpatterns)),
    path("accounts/claim/<str:token>/", claim_account, name="claim_account"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("venue/poster/", venue_poster, name="venue_poster"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/v1/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script from a URL (?script): the
    # Content-Security-Policy runs no inline script (config/csp.py).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
]
