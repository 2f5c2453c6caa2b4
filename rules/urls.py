from django.urls import path

from . import views

app_name = "rules"
urlpatterns = [
    path("", views.index, name="index"),
    path("search/", views.search, name="search"),
    path("calculator/", views.calculator, name="calculator"),
    path("cards/<int:pk>/", views.card, name="card"),
    path("rulings/<int:pk>/", views.ruling, name="ruling"),
    path("<slug:game>/", views.document, name="document"),
    path("<slug:game>/sections/<int:pk>/", views.section_by_id, name="section_by_id"),
    # Any dash: /rules/crossover/4-3-8/, 4−3−8 or ４－３－８ all work.
    path("<slug:game>/<str:number>/", views.section, name="section"),
]
