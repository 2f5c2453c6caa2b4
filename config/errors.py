"""The site's own CSRF failure page (settings.CSRF_FAILURE_VIEW).

Django renders a custom ``403_csrf.html`` without telling it why the check failed; this view
passes the one reason a visitor can act on (the browser keeps no cookies) and renders the
page in the site's layout and the reader's language.
"""

from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.shortcuts import render


def csrf_failure(request, reason: str = ""):
    return render(
        request, "403_csrf.html", {"no_cookie": reason == REASON_NO_CSRF_COOKIE}, status=403
    )
