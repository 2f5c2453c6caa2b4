"""Staff pages: event settings, life cycle, staff, players; the player's own drop/decklist."""

urlpatterns: list = []
