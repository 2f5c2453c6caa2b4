import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# DjangoTask gives every task delay_on_commit(): enqueue only once the surrounding
# database transaction has committed, so a worker never looks for rows that a rolled-back
# (or not yet visible) transaction wrote.
app = Celery("config", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
