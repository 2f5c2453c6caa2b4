"""Settings, read from the environment (see README, "Configuration")."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .env import env_bool, env_broker, env_database, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Production has no default secret; set SECRET_KEY "
            "(or DEBUG=true for a development server)."
        )
    SECRET_KEY = "django-insecure-development-only-key"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "cardpool",
    "decks",
    "rules",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env_database("DATABASE_URL", str(BASE_DIR / "db.sqlite3"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("ja", _("Japanese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", default="Asia/Tokyo")
USE_I18N = True
USE_TZ = True

# Cache: Redis when CACHE_URL (or REDIS_URL) is set, shared by every web worker; otherwise
# this process's memory (the laptop default). Rendered standings and pairings live here.
CACHE_URL = env_str("CACHE_URL") or env_str("REDIS_URL")
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "crossover",
            "TIMEOUT": 3600,
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "crossover",
            "TIMEOUT": 3600,
            "OPTIONS": {"MAX_ENTRIES": 2000},
        }
    }

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
MEDIA_ROOT = BASE_DIR / "media"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "decks:deck_list"
LOGOUT_REDIRECT_URL = "home"

# Uploaded card files are kept whole in memory up to this size before Django spools them.
DATA_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", default="60/minute"),
        "user": env_str("THROTTLE_USER", default="600/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "CrossOver tournaments API",
    "DESCRIPTION": "Card pool, decks, events and rules of CrossOver The F&C TCG and other games.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery. Without a broker every task runs in-process right away (eager), so the site
# needs nothing else installed; with CELERY_BROKER_URL set, tasks go to Redis or RabbitMQ
# and run in `celery -A config worker` processes.
CELERY_BROKER_URL = env_broker("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Late acknowledgement: a task whose worker dies mid-way is delivered again, so tasks must
# be harmless to re-run (they check the job's status before doing work).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Redis: redeliver unacknowledged tasks after 1 h (longer than any task we run).
    "visibility_timeout": 3600,
}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", default="INFO")},
    # Django's own console handler would print every record a second time via the root.
    "loggers": {"django": {"handlers": [], "level": "INFO", "propagate": True}},
}

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = 31_536_000 if env_bool("HSTS", default=True) else 0
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Joining the browsers' HSTS preload list cannot be undone quickly: the operator's call.
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", default=False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
    if env_bool("BEHIND_HTTPS_PROXY", default=False):
        # The proxy terminates TLS and says so in this header.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Exports with more rows than this are built by a background job with a progress page.
EXPORT_SYNC_LIMIT = env_int("EXPORT_SYNC_LIMIT", default=2000, minimum=1)
