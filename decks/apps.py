from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class DecksConfig(AppConfig):
    name = "decks"
    verbose_name = _("Decks")

    def ready(self):
        post_migrate.connect(_queue_stale_rechecks, sender=self)


def _queue_stale_rechecks(sender, **kwargs):
    """After migrate: stored decks checked against an older format version (a migration
    changed the format or merged cards) are checked again."""
    from .services import queue_stale_rechecks

    queue_stale_rechecks()
