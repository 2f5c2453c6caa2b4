import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# DjangoTask gives every task delay_on_commit(): enqueue only once the surrounding
# database transaction has committed, so a worker never looks for rows that a rolled-back
# (or not yet visible) transaction wrote.
app = Celery("config", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def route_webhook_tasks(name, args, kwargs, options, task=None, **extra):
    """Webhook tasks go to ``settings.WEBHOOKS_QUEUE`` when it is set (a slow receiver
    then never holds up imports and exports); other tasks to the default queue."""
    from django.conf import settings

    queue = getattr(settings, "WEBHOOKS_QUEUE", "")
    if queue and name in ("tournaments.deliver_webhook", "tournaments.sweep_webhooks"):
        return {"queue": queue}
    return None


app.conf.task_routes = (route_webhook_tasks,)
