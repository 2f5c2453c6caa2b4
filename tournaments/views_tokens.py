"""API token pages: the user's own tokens (``/accounts/tokens/``) and an event's tokens in
its staff pages (``/events/<pk>/staff/tokens/``). The logic is in ``tournaments.tokens``.

Only a signed-in session reaches these pages (Django views: an API token authenticates
the API only), so a token never makes another token. A new token's secret is in the
answer to the POST that made it and nowhere else: not in the session (stored in the
database), not in a message, and the answer is marked ``no-store``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from . import tokens
from .models import ApiToken, TokenScope
from .services.errors import InvalidInput, NotAllowed
from .views import _event_and_access, _require_staff

TOKEN_ERROR_TEXTS = {
    "name_required": _("Give the token a name."),
    "name_too_long": _("The name is too long: at most %(max_length)s characters."),
    "invalid_scope": _("Choose what the token may do."),
    "too_many_tokens": _("You have %(limit)s tokens already: revoke one first."),
    "invalid_expiry": _("Choose when the token expires."),
}

# Lifetimes offered when a token is made, in days ("": never expires).
EXPIRY_CHOICES = [
    ("7", _("In 7 days")),
    ("30", _("In 30 days")),
    ("90", _("In 90 days")),
    ("365", _("In a year")),
    ("", _("No expiry")),
]
DEFAULT_EXPIRY = "90"


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=tokens.NAME_MAX_LENGTH,
        help_text=_("What uses it, so you know which to revoke: “Discord bot”, “stream overlay”."),
    )
    scope = forms.ChoiceField(
        label=_("Access"),
        choices=TokenScope.choices,
        initial=TokenScope.READ,
        widget=forms.RadioSelect,
        help_text=_("Read only: the token can look but never change anything."),
    )
    # Not required: a form posted without it (an old script) makes a token that never
    # expires, as before expiry existed; the page offers 90 days first.
    expires = forms.ChoiceField(
        label=_("Expires"),
        choices=EXPIRY_CHOICES,
        initial=DEFAULT_EXPIRY,
        required=False,
        help_text=_("After this the token stops working; revoke it earlier if you can."),
    )

    def clean_expires(self) -> int | None:
        value = self.cleaned_data.get("expires") or ""
        return int(value) if value else None


def _create(request, form: TokenForm, *, event=None, access=None):
    """The new token, or None with the refusal on the form."""
    try:
        return tokens.create_token(
            request.user,
            name=form.cleaned_data["name"],
            scope=form.cleaned_data["scope"],
            event=event,
            access=access,
            expires_at=tokens.expiry_after(form.cleaned_data["expires"]),
        )
    except NotAllowed:
        raise
    except InvalidInput as error:
        text = TOKEN_ERROR_TEXTS.get(error.code, error.message)
        form.add_error(error.details.get("field"), str(text) % error.details)
        return None


def _created(request, new, context: dict):
    event = context.get("event")
    url = request.build_absolute_uri(
        reverse("event-detail", args=[event.pk]) if event else reverse("event-list")
    )
    example = f'curl -H "Authorization: Bearer {new.secret}" {url}'
    response = render(
        request, "tournaments/tokens/created.html", {"new": new, "example": example, **context}
    )
    add_never_cache_headers(response)
    return response


@login_required
def account_tokens(request):
    """The user's tokens (personal and event-scoped) and a form for a personal one."""
    form = TokenForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        new = _create(request, form)
        if new is not None:
            return _created(request, new, {})
    rows = list(tokens.personal_tokens(request.user))
    for token in rows:
        token.visible_prefix = tokens.visible_prefix(token)
        token.expired = tokens.is_expired(token)
    return render(
        request,
        "tournaments/tokens/account.html",
        {"tokens": rows, "form": form},
        status=400 if form.is_bound else 200,
    )


@login_required
@require_POST
def account_token_revoke(request, token_id: int):
    # Another user's token is a 404: its existence is not confirmed.
    token = get_object_or_404(tokens.active_tokens(request.user), pk=token_id)
    tokens.revoke_token(token, actor=request.user)
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("tokens:account_tokens")


@login_required
def event_tokens(request, pk: int):
    """The event's tokens, for its staff: each staff member makes their own, managers
    may revoke any."""
    event, access = _event_and_access(request, pk)
    _require_staff(access)
    form = TokenForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        new = _create(request, form, event=event, access=access)
        if new is not None:
            return _created(request, new, {"event": event, "access": access})
    rows = list(tokens.event_tokens(event, access))
    for token in rows:
        token.visible_prefix = tokens.visible_prefix(token)
        token.expired = tokens.is_expired(token)
        token.can_revoke = tokens.can_revoke(request.user, token, access)
    return render(
        request,
        "tournaments/tokens/event.html",
        {"event": event, "access": access, "tokens": rows, "form": form},
        status=400 if form.is_bound else 200,
    )


@login_required
@require_POST
def event_token_revoke(request, pk: int, token_id: int):
    event, access = _event_and_access(request, pk)
    _require_staff(access)
    token: ApiToken = get_object_or_404(tokens.event_tokens(event, access), pk=token_id)
    tokens.revoke_token(token, actor=request.user, access=access)
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("tournaments:event_tokens", pk=event.pk)


# config/urls.py includes these under "accounts/tokens/" (namespace "tokens").
account_urlpatterns = (
    [
        path("", account_tokens, name="account_tokens"),
        path("<int:token_id>/revoke/", account_token_revoke, name="account_token_revoke"),
    ],
    "tokens",
)

urlpatterns = [
    path("<int:pk>/staff/tokens/", event_tokens, name="event_tokens"),
    path(
        "<int:pk>/staff/tokens/<int:token_id>/revoke/",
        event_token_revoke,
        name="event_token_revoke",
    ),
]
