"""django-axes (the login lockout, see AXES_* in settings) in the admin, in Japanese too.

axes ships no Japanese catalogue. Its labels are listed here so ``makemessages`` puts them
in ours (LOCALE_PATHS wins over an app's own catalogue), and the app gets a name a staff
member recognises instead of "Axes"."""

from axes.apps import AppConfig as AxesAppConfig
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop


class LoginLockoutConfig(AxesAppConfig):
    verbose_name = _("Login lockouts")


# The strings of axes' models and admin (axes 8.3.1: models.py, admin.py, helpers.py).
AXES_LABELS = (
    gettext_noop("Access Attempt"),
    gettext_noop("Access lock out"),
    gettext_noop("Account locked: too many login attempts. Please try again later."),
    gettext_noop("Attempt Remaining"),
    gettext_noop("Attempt Time"),
    gettext_noop("Clean up expired attempts"),
    gettext_noop("Expires At"),
    gettext_noop("Failed Logins"),
    gettext_noop("Form Data"),
    gettext_noop("GET Data"),
    gettext_noop("HTTP Accept"),
    gettext_noop("IP Address"),
    gettext_noop("Locked Out"),
    gettext_noop("Logout Time"),
    gettext_noop("Meta Data"),
    gettext_noop("Not set"),
    gettext_noop("POST Data"),
    gettext_noop("Path"),
    gettext_noop("Session key hash (sha256)"),
    gettext_noop("The time when access attempt expires and is no longer valid."),
    gettext_noop("User Agent"),
    gettext_noop("access attempt expiration"),
    gettext_noop("access attempt expirations"),
    gettext_noop("access attempt"),
    gettext_noop("access attempts"),
    gettext_noop("access failure"),
    gettext_noop("access failures"),
    gettext_noop("access log"),
    gettext_noop("access logs"),
)
