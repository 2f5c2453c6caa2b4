from django.urls import path

from tournaments import views_metagame

from . import views

app_name = "decks"
urlpatterns = [
    path("check/", views.check_deck, name="check"),
    path("", views.deck_list, name="deck_list"),
    path("new/", views.deck_edit, name="deck_create"),
    path("<int:pk>/", views.deck_detail, name="deck_detail"),
    path("<int:pk>/edit/", views.deck_edit, name="deck_edit"),
    path("<int:pk>/duplicate/", views.deck_duplicate, name="deck_duplicate"),
    path("<int:pk>/delete/", views.deck_delete, name="deck_delete"),
    path("<int:pk>/export.txt", views.deck_export, name="deck_export"),
    *views_metagame.format_urlpatterns,
]
