from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CardpoolConfig(AppConfig):
    name = "cardpool"
    verbose_name = _("Card pool")
