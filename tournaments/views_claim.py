"""Claiming a placeholder account (``tournaments.services.claims``): the organizer's
"Make a claim link" on the staff player page, and the player's page behind the link,
``/accounts/claim/<token>/``, where they set a password and take the account over.

The link page is shown once and never cached; neither it nor the claim page (whose
address holds the token) sends a referrer to another site. "same-origin", not
"no-referrer": with no referrer at all the browser sends ``Origin: null`` on the form's
POST, which Django's CSRF check refuses."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from . import policy, selectors
from .services import claims
from .services.errors import InvalidInput, InvalidState
from .views import _event_and_access

# How each refusal of a link reads, and the status it is answered with.
REFUSALS = {
    "unknown_link": (
        gettext_lazy("This claim link is not valid. Check that it was copied whole."),
        404,
    ),
    "link_expired": (
        gettext_lazy("This claim link has expired. Ask the event's organizer for a new one."),
        410,
    ),
    "link_used": (
        gettext_lazy("This claim link has been used already. Sign in with your password."),
        410,
    ),
    "account_active": (
        gettext_lazy("This account is already in use. Sign in with your password."),
        409,
    ),
}


def _private(response):
    add_never_cache_headers(response)
    response["Referrer-Policy"] = "same-origin"
    return response


@login_required
@require_POST
def make_claim_link(request, pk: int, registration_id: int):
    """Staff player page → "Make a claim link": the link, shown once."""
    event, access = _event_and_access(request, pk)
    policy.require(
        claims.can_make_claim_link(access), "not_event_owner", "the event's organizer only"
    )
    registration = get_object_or_404(
        selectors.registration_list(request.user, event, access), pk=registration_id
    )
    registration.event = event
    try:
        new = claims.make_claim_link(registration, actor=request.user, access=access)
    except InvalidState:
        messages.error(request, _("This player's account is already in use: it cannot be claimed."))
        return redirect("tournaments:player_detail", pk=event.pk, registration_id=registration.pk)
    url = request.build_absolute_uri(reverse("claim_account", args=[new.token]))
    response = render(
        request,
        "tournaments/claim/link.html",
        {
            "event": event,
            "registration": registration,
            "name": selectors.display_name(registration),
            "claim_url": url,
            "expires_at": new.link.expires_at,
        },
    )
    return _private(response)


class ClaimForm(forms.Form):
    password1 = forms.CharField(
        label=gettext_lazy("New password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=gettext_lazy("New password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    email = forms.EmailField(
        label=gettext_lazy("E-mail (optional)"),
        required=False,
        help_text=gettext_lazy("Lets you reset a forgotten password."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password2") != data.get("password1"):
            self.add_error("password2", _("The two passwords differ."))
        return data


@require_http_methods(["GET", "HEAD", "POST"])
def claim_account(request, token: str):
    """The player's side: set a password (and an e-mail), and the account is theirs."""
    try:
        link = claims.find_claim_link(token)
    except claims.ClaimRefused as refusal:
        text, status = REFUSALS[refusal.code]
        response = render(request, "tournaments/claim/refused.html", {"text": text}, status=status)
        return _private(response)
    if request.method == "POST" and request.POST.get("accept"):
        return _accept(request, token, link)
    form = ClaimForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = claims.claim_account(
                token, password=form.cleaned_data["password1"], email=form.cleaned_data["email"]
            )
        except claims.ClaimRefused as refusal:
            text, status = REFUSALS[refusal.code]
            response = render(
                request, "tournaments/claim/refused.html", {"text": text}, status=status
            )
            return _private(response)
        except InvalidInput as error:
            field = "password1" if error.details.get("field") == "password" else "email"
            form.add_error(field, error.message)
        except claims.Conflict:
            text, status = REFUSALS["link_used"]
            response = render(
                request, "tournaments/claim/refused.html", {"text": text}, status=status
            )
            return _private(response)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Your account is ready, and you are signed in."))
            return redirect("tournaments:event_detail", pk=link.event_id)
    response = render(
        request,
        "tournaments/claim/claim.html",
        {"form": form, "account": link.user, "event": link.event},
        status=400 if request.method == "POST" else 200,
    )
    return _private(response)


def _accept(request, token: str, link):
    """A signed-in visitor adds the placeholder's records to their own account."""
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={request.path}")
    try:
        claims.accept_claim(token, user=request.user)
    except claims.ClaimRefused as refusal:
        text, status = REFUSALS[refusal.code]
        response = render(request, "tournaments/claim/refused.html", {"text": text}, status=status)
        return _private(response)
    except claims.Conflict:
        text, status = REFUSALS["link_used"]
        response = render(request, "tournaments/claim/refused.html", {"text": text}, status=status)
        return _private(response)
    except InvalidState:
        response = render(
            request,
            "tournaments/claim/refused.html",
            {
                "text": _(
                    "Your account already takes part in this event. Ask the event's "
                    "organizer to merge the two entries."
                )
            },
            status=409,
        )
        return _private(response)
    messages.success(request, _("The event's records are now on your account."))
    return redirect("tournaments:event_detail", pk=link.event_id)
