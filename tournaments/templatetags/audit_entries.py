"""``{% audit_rows entries as rows %}``: audit entries as the audit pages show them
(``tournaments.audit_texts``), for templates whose view passes a plain queryset of
entries (the staff dashboard's latest entries). Takes ``event``, ``access`` and the
request's user from the context; the names come with the entries' one query."""

from __future__ import annotations

from django import template

from .. import audit_texts

register = template.Library()


@register.simple_tag(takes_context=True)
def audit_rows(context, entries, changes=False):
    """The rows for ``tournaments/_audit_entries.html``; without the changed fields
    unless ``changes`` (they may need a query per kind of id they hold)."""
    request = context["request"]
    event, access = context["event"], context.get("access")
    named = audit_texts.with_names(entries, request.user, event, access)
    return audit_texts.audit_rows(
        named, user=request.user, event=event, access=access, changes=changes
    )
