"""What a phone polls to know that an event changed: a tiny JSON document with the
event's revision and the server's clock (stub: the live-rounds work completes it)."""

from __future__ import annotations

from django.http import JsonResponse
from django.urls import path
from django.utils import timezone

from . import selectors, snapshots


def live(request, pk: int):
    event, _access = selectors.viewed_event(request.user, pk)
    revision = snapshots.revision_of(event)
    return JsonResponse(
        {
            "revision": revision.number,
            "standings": revision.standings,
            "now": timezone.now().isoformat(),
        }
    )


urlpatterns = [path("<int:pk>/live/", live, name="live")]
