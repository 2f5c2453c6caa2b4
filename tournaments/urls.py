from django.urls import path

from . import (
    views,
    views_bracket,
    views_deckcheck,
    views_event,
    views_event_file,
    views_exports,
    views_live,
    views_metagame,
    views_penalties,
    views_players,
    views_public,
    views_rounds,
    views_tokens,
    views_webhooks,
    views_why,
)

app_name = "tournaments"
urlpatterns = [
    path("", views.event_list, name="event_list"),
    path("<int:pk>/", views_public.event_detail, name="event_detail"),
    path("<int:pk>/rounds/<int:number>/pairings/", views_public.pairings, name="pairings"),
    path("<int:pk>/rounds/<int:number>/why/", views_why.why_pairings, name="why_pairings"),
    path("<int:pk>/standings/", views_public.standings, name="standings"),
    path(
        "<int:pk>/standings/<int:registration_id>/working/",
        views_public.standings_working,
        name="standings_working",
    ),
    path("<int:pk>/bracket/", views_bracket.bracket, name="bracket"),
    path("<int:pk>/decklists/", views.decklists, name="decklists"),
    # player
    path("<int:pk>/register/", views.register, name="register"),
    path("<int:pk>/me/", views.my_registration, name="my_registration"),
    path("<int:pk>/me/match/", views.my_match, name="my_match"),
    path("<int:pk>/matches/<int:match_id>/", views.match_page, name="match"),
    path("<int:pk>/matches/<int:match_id>/report/", views.report_result, name="report_result"),
    path("<int:pk>/matches/<int:match_id>/preview/", views.result_preview, name="result_preview"),
    path("<int:pk>/matches/<int:match_id>/confirm/", views.confirm_result, name="confirm_result"),
    path("<int:pk>/matches/<int:match_id>/dispute/", views.dispute_result, name="dispute_result"),
    # staff
    path("<int:pk>/staff/", views.dashboard, name="dashboard"),
]
urlpatterns += (
    views_event.urlpatterns
    + views_players.urlpatterns
    + views_penalties.urlpatterns
    + views_rounds.urlpatterns
    + views_exports.urlpatterns
    + views_live.urlpatterns
    + views_metagame.event_urlpatterns
    + views_deckcheck.urlpatterns
    + views_event_file.urlpatterns
    + views_tokens.urlpatterns
    + views_webhooks.urlpatterns
)
