"""Exports of standings, pairings and decklists (CSV, JSON, XLSX) with background jobs."""

urlpatterns: list = []
