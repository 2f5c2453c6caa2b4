"""Who did an act, as the pages show it: ``{{ penalty|done_by:"judge" }}``.

An act an event-file import wrote (``imported``) is what the file states, not an act of
an account here: it reads "per the imported file: NAME" (``tournaments.event_file``)."""

from django import template

from ..audit_texts import act_by

register = template.Library()


@register.filter
def done_by(act, field: str) -> str:
    """The username in ``act.<field>``, marked when the act came from an imported file."""
    user = getattr(act, field, None)
    name = user.get_username() if user is not None else ""
    return act_by(name, getattr(act, "imported", False))
