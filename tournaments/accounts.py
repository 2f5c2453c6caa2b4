"""Sign-up for players. Log in and out use Django's own views (config/urls.py)."""

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from .forms_event import NoBidiControls


class SignupForm(UserCreationForm):
    """Django's sign-up form; the username (the name others see) may not hold a
    direction-changing character."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.validators = [NoBidiControls(username.label), *username.validators]


def signup(request):
    """Create an account and sign in; then back to where the visitor came from (``next``,
    on this site only) or to the player's hub, as after logging in."""
    form = SignupForm(request.POST or None)
    target = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = ""
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(target or settings.LOGIN_REDIRECT_URL)
    return render(request, "registration/signup.html", {"form": form, "next": target})
