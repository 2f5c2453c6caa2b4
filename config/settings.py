"""Settings, read from the environment (see README, "Configuration")."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .csp import DEFAULT_DIRECTIVES as DEFAULT_CSP_DIRECTIVES
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
# A failed form check answers with the site's own translated page (why, and what to do).
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"

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
    # Failed logins counted per (username, address); locks the login pages (see AXES_*).
    "config.axes_app.LoginLockoutConfig",
    "cardpool",
    "decks",
    "rules",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every response, static files too (config/csp.py).
    "config.csp.ContentSecurityPolicyMiddleware",
    # Static files (hashed names, precompressed .gz/.br) are answered here, before sessions
    # and the rest; see STORAGES below.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # gzip for pages and API answers. Above every middleware that edits the body (none
    # below does) so it compresses the final response; below WhiteNoise, whose files come
    # precompressed. Django's GZipMiddleware (a subclass in config/middleware.py).
    "config.middleware.CompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # 400 for U+0000 in any input, on every database alike (config/nul.py).
    "config.nul.RefuseNulMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
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
# Persistent connections: a new PostgreSQL connection per request costs a few ms (more
# with TLS); each worker thread keeps its own for DB_CONN_MAX_AGE seconds (0 = close after
# every request), checked before reuse. SQLite opens a local file, so it keeps the old
# per-request connection unless asked.
_IS_POSTGRES = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
DATABASES["default"]["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", default=60 if _IS_POSTGRES else 0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
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
            "BACKEND": "config.cache.RedisCache",
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
# The default cache also counts the throttles (DRF's AnonRateThrottle and UserRateThrottle
# use `default`, and so does the deck-check page, config/throttling.py): with Redis every
# web worker counts against one limit; in local memory each worker process counts on its
# own (N workers allow N times the rate). Production with several workers sets CACHE_URL.

# How many reverse proxies in front of the site append to X-Forwarded-For. 0 (the
# default): the header is ignored and the client is the connection's address, so a client
# cannot pick a fresh address per request to escape the throttles or the login lockout.
# Behind one proxy (nginx, a load balancer) set 1: the address that proxy appended is used.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", default=0, minimum=0)

# Sessions: read from the shared cache, written through to the database (a Redis restart
# logs nobody out). Without a shared cache, the database alone: a per-process cache would
# serve a stale session to the other workers.
SESSION_ENGINE = "django.contrib.sessions.backends." + ("cached_db" if CACHE_URL else "db")

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where `collectstatic` writes and WhiteNoise serves from (production).
STATIC_ROOT = Path(env_str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
# Production: `collectstatic` writes content-hashed names (css/site.1a2b3c4d5e6f.css, cached
# for a year by browsers) plus .gz and .br copies that WhiteNoise picks by Accept-Encoding.
# With DEBUG, runserver serves the files from static/ as they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
MEDIA_ROOT = BASE_DIR / "media"

# django-axes first: it refuses a locked-out login before the password is checked, and
# counts the failures (every login form: /accounts/login/, /admin/login/).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Brute force: after LOGIN_FAILURE_LIMIT wrong passwords for one username from one address
# that pair is refused for LOGIN_COOLOFF_MINUTES, whatever the password. Keyed on the pair,
# as the axes docs recommend, so an attacker cannot lock a player out at check-in from
# another address, nor a whole venue behind one address by guessing one account. Staff
# unlock early in the admin (Login lockouts → Access attempts: delete the row).
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", default=10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", default=15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "config.throttling.locked_out"
# The same client address as the throttles (TRUSTED_PROXY_COUNT).
AXES_CLIENT_IP_CALLABLE = "config.throttling.client_address"

LOGIN_URL = "login"
# The player's hub (their events and current match); a ``next`` parameter wins.
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Uploaded card files are kept whole in memory up to this size before Django spools them.
DATA_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First: a request that carries an API token is judged by it (read-only and
        # event-scoped limits are enforced there, tournaments/api/tokens.py).
        "tournaments.api.tokens.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # DRF's defaults with the project's JSON parser: a body nested too deeply is a 400, a
    # JSON body in another charset than UTF-8 a 415 (tournaments/api/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "tournaments.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    # drf-spectacular, plus the errors any request may get (tournaments/api/schema.py).
    "DEFAULT_SCHEMA_CLASS": "tournaments.api.schema.ApiAutoSchema",
    # One error shape, {code, message, details}, for every API (decks, cards, rules, events).
    "EXCEPTION_HANDLER": "tournaments.api.views.exception_handler",
    # The client address of the throttles (DRF's get_ident), the deck-check page's throttle
    # and the login lockout alike (config/throttling.py client_address).
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
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
    # One name for an enum that several inputs use under the same field name ("kind").
    "ENUM_NAME_OVERRIDES": {"PenaltyKindEnum": "tournaments.models.PenaltyKind"},
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
    # Redis: redeliver unacknowledged tasks after 1 h (longer than any task we run). Kept
    # long: Redis redelivers after this even while the worker is alive and busy. A killed
    # pool child's task is requeued at once (REJECT_ON_WORKER_LOST); a job whose whole
    # worker died is sent again by the beat watchdog below within a minute.
    "visibility_timeout": 3600,
}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # The process id tells the web workers apart in one log.
        "plain": {"format": "%(asctime)s [%(process)d] %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "plain",
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Django's own console handler would print every record a second time via the root.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        # A 500 ("Internal Server Error: /path" with the traceback) reaches stderr with or
        # without DEBUG, whatever LOG_LEVEL says: Django mails it to ADMINS by default, and
        # there are none.
        "django.request": {"handlers": [], "level": "WARNING", "propagate": True},
    },
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
    # The load balancer probes the health endpoints over plain HTTP (config/health.py).
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    if env_bool("BEHIND_HTTPS_PROXY", default=False):
        # The proxy terminates TLS and says so in this header.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy (config/csp.py): only the site's own scripts and styles.
CSP_DIRECTIVES = DEFAULT_CSP_DIRECTIVES
CSP_REPORT_ONLY = env_bool("CSP_REPORT_ONLY", default=False)
# Where browsers send violation reports (report-uri); empty: none are sent.
CSP_REPORT_URI = env_str("CSP_REPORT_URI", default="")

# How many decks one account may store (a new one beyond it is refused: too_many_decks).
DECKS_PER_USER = env_int("DECKS_PER_USER", default=200, minimum=1)
# Event files one user may import in 24 hours, and placeholder accounts their imports may
# make (site administrators and manage.py import_event are exempt; a refused file counts
# for nothing): tournaments/event_file/limits.py, docs/event-file.md.
EVENT_FILE_IMPORTS_PER_DAY = env_int("EVENT_FILE_IMPORTS_PER_DAY", default=20, minimum=1)
EVENT_FILE_ACCOUNTS_PER_DAY = env_int("EVENT_FILE_ACCOUNTS_PER_DAY", default=2000, minimum=0)

# Exports with more rows than this are built by a background job with a progress page.
EXPORT_SYNC_LIMIT = env_int("EXPORT_SYNC_LIMIT", default=2000, minimum=1)
# How long a cached page or API answer of an event is kept (tournaments/pagecache.py).
# Entries are keyed by the event's revision: this bounds memory, not freshness.
PAGE_CACHE_SECONDS = env_int("PAGE_CACHE_SECONDS", default=600, minimum=1)
# How often an open page asks whether its event changed (static/js/live.js, views_live).
LIVE_POLL_SECONDS = env_int("LIVE_POLL_SECONDS", default=20, minimum=1)

# Outgoing webhooks (tournaments/webhooks.py, docs/webhooks.md). Targets on loopback,
# private, link-local, multicast or reserved addresses are refused unless this is on (a
# venue laptop posting to a bot on the same LAN; the tests' receiver on 127.0.0.1).
WEBHOOKS_ALLOW_PRIVATE_TARGETS = env_bool("WEBHOOKS_ALLOW_PRIVATE_TARGETS", default=False)
# Seconds a receiver has to connect and answer (each socket operation).
WEBHOOKS_TIMEOUT = env_int("WEBHOOKS_TIMEOUT", default=5, minimum=1)
# Attempts before a delivery fails for good; the waits between them (the last repeats).
WEBHOOKS_MAX_ATTEMPTS = env_int("WEBHOOKS_MAX_ATTEMPTS", default=6, minimum=1)
WEBHOOKS_RETRY_DELAYS = (30, 120, 600, 3600)
# A delivery still "sending" this long after a worker claimed it is sent again (the worker
# died mid-send); longer than WEBHOOKS_TIMEOUT allows a send to take.
WEBHOOKS_LEASE_SECONDS = env_int("WEBHOOKS_LEASE_SECONDS", default=60, minimum=1)
# How often Celery beat sends the due and the stuck deliveries to the workers.
WEBHOOKS_SWEEP_SECONDS = env_int("WEBHOOKS_SWEEP_SECONDS", default=15, minimum=1)
# The site's public address, for the links in the payload (e.g. https://example.org);
# empty: links are paths.
WEBHOOKS_SITE_URL = (env_str("WEBHOOKS_SITE_URL", default="") or "").rstrip("/")
# A queue of their own for the webhook tasks (a slow receiver then never delays imports
# and exports); empty: Celery's default queue.
WEBHOOKS_QUEUE = env_str("WEBHOOKS_QUEUE", default="") or ""
# How often Celery beat looks for jobs (imports, re-checks, exports) whose worker died (no
# heartbeat for config.jobs.HEARTBEAT_LEASE) and sends their task again.
JOBS_WATCHDOG_SECONDS = env_int("JOBS_WATCHDOG_SECONDS", default=10, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "jobs-watchdog": {
        "task": "config.requeue_stalled_jobs",
        "schedule": float(JOBS_WATCHDOG_SECONDS),
        "options": {"expires": float(JOBS_WATCHDOG_SECONDS)},
    },
    "webhooks-sweep": {
        "task": "tournaments.sweep_webhooks",
        "schedule": float(WEBHOOKS_SWEEP_SECONDS),
        # A sweep nobody ran in time is dropped: the next one does the same work.
        "options": {"expires": float(WEBHOOKS_SWEEP_SECONDS)},
    },
}
