"""Pages about players: the staff's player page (drop, re-entry, decklist changes, penalties), late
entries, and the player's own drop, decklist change and re-entry."""

urlpatterns: list = []
