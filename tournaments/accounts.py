"""Sign-up for players. Log in and out use Django's own views (config/urls.py)."""

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from .usernames import UsernameValidator

USERNAME_HELP = _(
    "Up to 150 characters: letters of any script (such as 山田太郎), digits and @ . + - _, "
    "with no spaces or invisible characters. Upper and lower case, full and half width and "
    "look-alike letters (a Cyrillic “а” for a Latin “a”) count as the same, so a name that "
    "looks like an existing one is taken."
)


def use_username_rules(field, *, exclude_pk=None) -> None:
    """Make a username form field check the site's rules (``tournaments.usernames``)
    instead of Django's pattern alone: one validator, one message at a time, spaces at
    the ends refused rather than silently cut off."""
    field.strip = False
    field.validators = [UsernameValidator(exclude_pk=exclude_pk)]
    field.help_text = USERNAME_HELP


class SignupForm(UserCreationForm):
    """Django's sign-up form; the username (the name others see) goes through
    ``tournaments.usernames.validate_new_username``: no look-alike of an existing
    account, no invisible or direction-changing character."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        use_username_rules(self.fields["username"])


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
