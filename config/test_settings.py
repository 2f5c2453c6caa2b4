"""Settings for the test suite: the real settings plus a fast password hasher.

The environment still decides the database (DATABASE_URL), so the same suite runs on
SQLite and on PostgreSQL. On SQLite the test database is a file, not memory, so that a
Celery worker started by a test can open it and so that WAL mode is real.
"""

import os

os.environ.setdefault("SECRET_KEY", "insecure-key-for-tests-only")
os.environ.setdefault("DEBUG", "false")

from .settings import *  # noqa: F403
from .settings import BASE_DIR, DATABASES, STORAGES

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
# The test client speaks plain HTTP; production redirects it to HTTPS.
SECURE_SSL_REDIRECT = False
# No collectstatic before the tests: plain names ({% static %} needs no manifest) and
# WhiteNoise finds each file in static/ and the apps when asked (the browser test's server).
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One file per test run (process id): two runs in one checkout at the same time would
    # otherwise delete and rewrite each other's database ("disk I/O error").
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db.sqlite3-{os.getpid()}")}
