"""Send the webhook deliveries that are due or stuck, once or every few seconds.

With a broker, Celery beat does this (``tournaments.sweep_webhooks``); on a laptop without
one, run ``manage.py send_webhooks --loop`` beside the web server so failed deliveries are
retried and ones interrupted by a restart are sent again."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.management.base import BaseCommand

from tournaments import webhooks


class Command(BaseCommand):
    help = "Send the webhook deliveries that are due (retries) or stuck in sending."

    def add_arguments(self, parser):
        parser.add_argument(
            "--loop",
            action="store_true",
            help="keep sweeping every WEBHOOKS_SWEEP_SECONDS until stopped",
        )

    def handle(self, *args, loop: bool = False, **options):
        while True:
            queued = webhooks.sweep()
            if queued:
                self.stdout.write(f"{len(queued)} webhook deliveries queued")
            if not loop:
                return
            time.sleep(settings.WEBHOOKS_SWEEP_SECONDS)
