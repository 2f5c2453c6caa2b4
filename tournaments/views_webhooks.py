"""An event's outgoing webhooks on the staff's pages: the list, a new one, editing and
deleting one, rotating its secret, and the delivery log (docs/webhooks.md).

The secret is shown once: on the page that answers the webhook's creation or the
rotation of its secret (``no-store``, like a new API token); the edit page shows it
masked (``services.webhook_secrets.masked``) and offers "Rotate secret" instead.

Webhooks are part of the event's settings: its managers (the organizer, co-organizers and
site admins, ``policy.can_edit_event``) manage them and read their log; anyone else who may
see the event gets a 403, an event they may not see or another event's webhook a 404. The
URL is checked by ``webhooks.check_target`` when the form is saved (and again at each send).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from . import policy, webhooks
from .models import Webhook, WebhookKind
from .services import webhook_secrets
from .views import _event_and_access

LOG_PAGE_SIZE = 50


URL_HELP = gettext_lazy(
    "The address that receives a POST with a JSON body, e.g. "
    "https://bot.example.org/crossover. Addresses on private or local "
    "networks are refused unless the site allows them."
)


class WebhookForm(forms.ModelForm):
    url = forms.URLField(
        label=gettext_lazy("URL"),
        max_length=500,
        assume_scheme="https",
        help_text=URL_HELP,
        widget=forms.URLInput(attrs={"autocomplete": "off", "inputmode": "url"}),
    )
    kinds = forms.MultipleChoiceField(
        label=gettext_lazy("Send when"),
        choices=WebhookKind.choices,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": gettext_lazy("Choose at least one kind of news.")},
    )

    class Meta:
        model = Webhook
        fields = ["url", "secret", "kinds", "active"]
        labels = {
            "secret": gettext_lazy("Secret"),
            "active": gettext_lazy("Active"),
        }
        help_texts = {
            "secret": gettext_lazy(
                "The receiver checks the X-Crossover-Signature header with it "
                "(HMAC-SHA256 of the body). Keep it private."
            ),
        }
        widgets = {
            "secret": forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
        }

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        webhooks.check_target(url)  # a TargetRefused is the field's error
        return url

    def clean_secret(self) -> str:
        secret = self.cleaned_data["secret"].strip()
        if len(secret) < 16:
            raise forms.ValidationError(
                _("Use a secret of at least 16 characters (the one suggested is fine).")
            )
        return secret


class WebhookEditForm(WebhookForm):
    """The edit page's form: the secret is never sent back to the page (rotate it)."""

    class Meta(WebhookForm.Meta):
        fields = ["url", "kinds", "active"]


def _manager_event(request, pk: int):
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_edit_event(access), "not_manager", "event managers only")
    return event, access


def _webhook(event, hook_id: int) -> Webhook:
    return get_object_or_404(webhooks.webhooks_of(event), pk=hook_id)


@login_required
@require_safe
def webhook_list(request, pk: int):
    """The event's webhooks (one query, whatever their number)."""
    event, access = _manager_event(request, pk)
    return render(
        request,
        "tournaments/webhooks/list.html",
        {
            "event": event,
            "access": access,
            "hooks": list(webhooks.webhooks_of(event)),
            "kind_labels": dict(WebhookKind.choices),
        },
    )


def _form_page(request, event, access, form, hook=None):
    masked = webhook_secrets.masked(hook.secret) if hook is not None else ""
    return render(
        request,
        "tournaments/webhooks/form.html",
        {"event": event, "access": access, "form": form, "hook": hook, "masked_secret": masked},
    )


def _secret_page(request, event, access, hook, *, rotated: bool):
    """The one page that shows the secret: never stored by a browser or a proxy."""
    response = render(
        request,
        "tournaments/webhooks/secret.html",
        {"event": event, "access": access, "hook": hook, "rotated": rotated},
    )
    add_never_cache_headers(response)
    return response


@login_required
def webhook_new(request, pk: int):
    event, access = _manager_event(request, pk)
    if request.method != "POST":
        form = WebhookForm(
            initial={"secret": webhooks.new_secret(), "kinds": WebhookKind.values, "active": True}
        )
        return _form_page(request, event, access, form)
    form = WebhookForm(request.POST, instance=Webhook(event=event, created_by=request.user))
    if not form.is_valid():
        return _form_page(request, event, access, form)
    hook = form.save()
    return _secret_page(request, event, access, hook, rotated=False)


@login_required
def webhook_edit(request, pk: int, hook_id: int):
    event, access = _manager_event(request, pk)
    hook = _webhook(event, hook_id)
    form = WebhookEditForm(request.POST if request.method == "POST" else None, instance=hook)
    if request.method != "POST" or not form.is_valid():
        return _form_page(request, event, access, form, hook)
    form.save()
    messages.success(request, _("Webhook saved."))
    return redirect("tournaments:webhook_list", event.pk)


@login_required
def webhook_delete(request, pk: int, hook_id: int):
    """A confirmation page (GET), then the deletion (POST); the webhook's delivery log
    goes with it."""
    event, access = _manager_event(request, pk)
    hook = _webhook(event, hook_id)
    if request.method != "POST":
        return render(
            request,
            "tournaments/webhooks/delete.html",
            {"event": event, "access": access, "hook": hook},
        )
    hook.delete()
    messages.success(request, _("Webhook deleted."))
    return redirect("tournaments:webhook_list", event.pk)


@login_required
def webhook_rotate_secret(request, pk: int, hook_id: int):
    """A confirmation page (GET), then a new secret (POST), shown once; audited."""
    event, access = _manager_event(request, pk)
    hook = _webhook(event, hook_id)
    if request.method != "POST":
        return render(
            request,
            "tournaments/webhooks/rotate.html",
            {"event": event, "access": access, "hook": hook},
        )
    webhook_secrets.rotate_secret(hook, actor=request.user, access=access)
    return _secret_page(request, event, access, hook, rotated=True)


@login_required
@require_safe
def webhook_deliveries(request, pk: int):
    """The delivery log, newest first, 50 a page (``?webhook=<id>``: one webhook's), each
    delivery with its attempts; a fixed number of queries."""
    event, access = _manager_event(request, pk)
    deliveries = webhooks.deliveries_of(event)
    hook = None
    if request.GET.get("webhook", "").isdigit():
        hook = _webhook(event, int(request.GET["webhook"]))
        deliveries = deliveries.filter(webhook=hook)
    page = Paginator(deliveries, LOG_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "tournaments/webhooks/deliveries.html",
        {
            "event": event,
            "access": access,
            "hook": hook,
            "page": page,
            "deliveries": page.object_list,
            "extra": f"webhook={hook.pk}&" if hook else "",
        },
    )


urlpatterns = [
    path("<int:pk>/staff/webhooks/", webhook_list, name="webhook_list"),
    path("<int:pk>/staff/webhooks/new/", webhook_new, name="webhook_new"),
    path("<int:pk>/staff/webhooks/<int:hook_id>/", webhook_edit, name="webhook_edit"),
    path("<int:pk>/staff/webhooks/<int:hook_id>/delete/", webhook_delete, name="webhook_delete"),
    path(
        "<int:pk>/staff/webhooks/<int:hook_id>/rotate-secret/",
        webhook_rotate_secret,
        name="webhook_rotate_secret",
    ),
    path("<int:pk>/staff/webhooks/deliveries/", webhook_deliveries, name="webhook_deliveries"),
]
