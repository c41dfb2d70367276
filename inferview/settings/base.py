"""Settings read from the environment.

With no environment at all the site runs on one machine: SQLite, a database cache, and
Celery over kombu's filesystem transport with a real worker process. Production sets
DATABASE_URL (PostgreSQL) and REDIS_URL (broker, result store and cache).
"""

import os
from pathlib import Path

import dj_database_url


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("INFERVIEW_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# --- Core -----------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", True)
# The development key is only acceptable while DEBUG is on; production.py refuses it.
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
SITE_ID = 1
# The public host[:port] of this deployment (admin "View on site", links in e-mails).
SITE_DOMAIN = os.environ.get("SITE_DOMAIN", "localhost:8000")
SITE_NAME = "Inferview"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.sitemaps",
    "reversion",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.usersessions",
    "csp",
    "inferview.accounts",
    "inferview.access",
    "inferview.community",
    "questions",
    "calculators",
]

MIDDLEWARE = [
    # /healthz and /readyz first: probes skip host checks, HTTPS redirects and sessions.
    "inferview.health.HealthCheckMiddleware",
    "inferview.requestlog.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages differ by tier: never let a shared cache hand one viewer's page to another.
    "inferview.access.middleware.PrivateResponsesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, with the reader's row read beside the session (inferview.accounts.sessions)
    "inferview.accounts.middleware.ReaderAuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "inferview.pages.cache.PersonalVersionMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # After auth: staff without a second factor are kept out of the admin; a session's
    # "last seen" moves at most every few minutes (inferview.accounts.middleware).
    "inferview.accounts.middleware.AccountSecurityMiddleware",
    # A cache or database that is away answers 503 with Retry-After, not 500.
    "inferview.outage.ServiceUnavailableMiddleware",
]

ROOT_URLCONF = "inferview.urls"
WSGI_APPLICATION = "inferview.wsgi.application"
ASGI_APPLICATION = "inferview.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "inferview.context_processors.site",
                "inferview.context_processors.shared_marks",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{VAR_DIR / 'inferview.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A persistent connection is pinged before each request reuses it, so a restarted
        # PostgreSQL costs a reconnect, not a 500 on every process's stale connection.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the worker write results while the web process reads pages; with WAL,
    # synchronous=NORMAL is still safe against a crashed process (only a power cut can
    # lose the last commits) and saves an fsync per commit.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;",
        "transaction_mode": "IMMEDIATE",
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Fail fast while the server is away (the request answers 503, see inferview.outage).
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = int(
        os.environ.get("DB_CONNECT_TIMEOUT", "2")
    )
    # Django's cursors bind on the client and never prepare; Django also sets psycopg's
    # prepare_threshold to None, which turns off even an explicit prepare. A threshold no
    # statement reaches keeps automatic preparation off and lets inferview.prepared's
    # cursor prepare the few hot statements it runs.
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 2**31 - 1
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache ----------------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Short timeouts, no retries and a breaker (inferview.cache): a Redis outage costs a
    # page one cache miss, and a rate limit a 503, never a hung request.
    CACHES = {
        "default": {
            "BACKEND": "inferview.cache.FailFastRedisCache",
            "LOCATION": os.environ.get("CACHE_REDIS_URL", REDIS_URL),
            # Two deployments (or two test stacks) sharing one Redis keep apart their
            # cached pages and rate-limit counts.
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", ""),
            "OPTIONS": {
                "client_cache_entries": int(os.environ.get("REDIS_CLIENT_CACHE_ENTRIES", "256"))
            },
        }
    }
    # Sessions read from Redis, kept in the database (inferview.sessions): a signed-in
    # page, even one served whole from the page cache, then costs no session query.
    SESSION_ENGINE = "inferview.accounts.sessions"
else:
    # A database cache is shared by every process on the machine, which rate limiting needs.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "inferview_cache",
        }
    }

# Each process's own memory, for copies that may lag the shared cache by a second: the
# content version and the anonymous pages (``questions.content_version.recent``,
# ``inferview.pages.cache``), so a page served whole costs no round trip to Redis.
CACHES["local"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "local",
    # the 409 pages of the sitemap weigh 7.3 MB in all (median 15 KB, largest 112 KB);
    # each tier's shared part of a page and the blank readers' parts of a question page
    # (a few KB) live here too, so room for about three entries per page: under 25 MB
    "OPTIONS": {"MAX_ENTRIES": 1200},
}

# --- Celery ---------------------------------------------------------------------------
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"calculators.*": {"queue": "calculators"}}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes every database connection before and after every task
# unless this is set; inferview.celery applies Django's per-request rules instead
# (CONN_MAX_AGE, health checks), and the fixup's own close then comes once a million tasks.
CELERY_DB_REUSE_MAX = 1_000_000
# Publishing must fail fast when the broker is down so the API can answer 503 quickly.
CELERY_BROKER_CONNECTION_TIMEOUT = 1.0
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY = False
# A worker whose broker went away keeps trying to reconnect for as long as it takes
# instead of exiting after 100 attempts; a supervisor restarts it if it dies anyway.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Celery beat (one process: scripts/run.sh, the Procfile's beat, compose's beat) queues
# scheduled publishing every 30 s, so an item goes live at most a minute after its time.
# The schedule is fixed here, so Celery's own file-backed scheduler is enough.
# It also hands back, every 5 s, the calculation runs of a worker that died (their lease
# lapsed: calculators.leases), rather than waiting for the visibility timeout below.
CELERY_BEAT_SCHEDULE = {
    "publish-due": {"task": "questions.publish_due", "schedule": 30.0},
    "reap-abandoned-runs": {"task": "calculators.reap_abandoned", "schedule": 5.0},
}
# Seconds a calculation run's lease lasts unrenewed (renewed every quarter of it).
CALC_RUN_LEASE_SECONDS = float(os.environ.get("CALC_RUN_LEASE_SECONDS", "10"))
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "socket_connect_timeout": 1,
        "socket_timeout": 2,
        # A task taken by a worker that then died unacknowledged (acks_late) is handed
        # out again after this long. Redis's default is an hour; it must stay above the
        # longest task (calculators.tasks.TIME_LIMIT, 45 s) or a running task is doubled.
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "120")),
        # Every live worker looks for such abandoned tasks every 5 s (kombu's default
        # sweep, every 10th of 10 s ticks, would add up to 100 s to the timeout).
        "unacked_restore_interval": 5,
        "unacked_restore_throttle": 1,
    }
    CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
    CELERY_REDIS_SOCKET_TIMEOUT = 2
else:
    CELERY_QUEUE_DIR = VAR_DIR / "celery" / "queue"
    CELERY_RESULT_DIR = VAR_DIR / "celery" / "results"
    for _folder in (CELERY_QUEUE_DIR, CELERY_RESULT_DIR, VAR_DIR / "celery" / "control"):
        _folder.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    # kombu's filesystem transport, draining in short slices so a worker stops promptly.
    CELERY_BROKER_TRANSPORT = "inferview.embedded_queue:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_QUEUE_DIR),
        "data_folder_out": str(CELERY_QUEUE_DIR),
        "store_processed": False,
        # kombu polls a virtual transport's folder once a second by default, which made
        # every calculator run on the embedded queue wait 0.5 s on average; 50 ms costs a
        # stat() of one folder twenty times a second.
        "polling_interval": 0.05,
        # fanout/broadcast (worker remote control) exchanges; default is ./control
        "control_folder": str(VAR_DIR / "celery" / "control"),
    }
    CELERY_RESULT_BACKEND = f"file://{CELERY_RESULT_DIR}"

# --- Auth and accounts ----------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
# Django's and allauth's backends, loading the reader's tier with the user row in one
# query (inferview.accounts.backends).
AUTHENTICATION_BACKENDS = [
    "inferview.accounts.backends.ReaderBackend",
    "inferview.accounts.backends.AllauthReaderBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# A new account lands on "Start here" (a cram plan or a first track), unless ?next= says.
ACCOUNT_SIGNUP_REDIRECT_URL = "/start/"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_ADAPTER = "inferview.accounts.adapter.AccountAdapter"
# Sign-up also asks for an optional public name (the handle shown when it is left empty).
ACCOUNT_FORMS = {"signup": "inferview.accounts.forms.SignupForm"}
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Inferview] "
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
# Failed sign-ins are keyed on (IP, email) by the adapter, so "key" below means that pair:
# 10 failures per pair per 15 minutes, 60 per IP across all emails.
ACCOUNT_RATE_LIMITS = {
    "login_failed": os.environ.get("RATE_LIMIT_LOGIN_FAILED", "60/15m/ip,10/15m/key"),
    "login": os.environ.get("RATE_LIMIT_LOGIN", "30/m/ip"),
    "signup": os.environ.get("RATE_LIMIT_SIGNUP", "10/h/ip"),
    "reset_password": "20/h/ip,5/h/key",
    # Adding an address mails a confirmation to it; enumeration prevention (on) means the
    # form cannot say "that address has an account", so the mail also goes to an address
    # that belongs to someone else. Five an hour per account (allauth: ten a minute) keeps
    # one account from flooding a stranger; allauth's 3-minute cooldown per address stands.
    "manage_email": os.environ.get("RATE_LIMIT_MANAGE_EMAIL", "5/h/user"),
}
# Calculator runs posted per user (or address) per minute (calculators.api).
CALCULATOR_RUN_RATE = os.environ.get("CALCULATOR_RUN_RATE", "300/m")

# Two-factor sign-in (allauth.mfa): authenticator apps (TOTP) and recovery codes. Wrong
# codes count against "login_failed" above, keyed per user: 10 per 15 minutes, as for
# passwords. Staff must have it to use the admin (inferview.accounts.middleware).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "Inferview"
MFA_RECOVERY_CODES_SHOW_ONCE = True
# Signed-in sessions (allauth.usersessions), listed on /account/. allauth's own activity
# tracking writes a row on every request; our middleware moves "last seen" at most every
# few minutes instead.
USERSESSIONS_TRACK_ACTIVITY = False

# --- Email ----------------------------------------------------------------------------
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Inferview <hello@inferview.local>")

# --- Product --------------------------------------------------------------------------
NEW_BADGE_DAYS = int(os.environ.get("NEW_BADGE_DAYS", "30"))
# Premium is a one-time purchase; amounts are in the currency's minor unit.
PREMIUM_PRICES = {
    "USD": {"amount": int(os.environ.get("PREMIUM_PRICE_USD", "2500")), "symbol": "$"},
    "INR": {"amount": int(os.environ.get("PREMIUM_PRICE_INR", "200000")), "symbol": "₹"},
}
DEFAULT_CURRENCY = "USD"
STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
STRIPE_WEBHOOK_SECRET = os.environ.get("STRIPE_WEBHOOK_SECRET", "")
# The local provider completes purchases without the network; it only works with DEBUG.
PAYMENTS_LOCAL_PROVIDER = env_bool("PAYMENTS_LOCAL_PROVIDER", DEBUG)
CONTENT_DIR = Path(os.environ.get("CONTENT_DIR", BASE_DIR / "content"))

# --- API ------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "inferview.api.pagination.StrictPageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "EXCEPTION_HANDLER": "inferview.api.errors.exception_handler",
    # JSON only: form fields carry no types (no number, boolean or null), so a body could not
    # be held to its schema; nothing on the site posts forms to /api/ (its forms post to the
    # HTML views). JSON nested past a sane depth is a 400, not a RecursionError
    # (inferview.api.parsers).
    "DEFAULT_PARSER_CLASSES": ["inferview.api.parsers.DepthLimitedJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Inferview API",
    "DESCRIPTION": "Tracks, questions, concepts, guides and calculators.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc served from our own static files (drf-spectacular-sidecar):
    # the docs work offline and no third party sees who reads them.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "QuestionKindEnum": "questions.models.Kind",
        "GuideItemKindEnum": "questions.models.ItemKind",
        "PurchaseStatusEnum": "inferview.access.models.Purchase.Status",
        "ProgressStatusEnum": "inferview.community.models.ProgressStatus",
        "CorrectionKindEnum": "inferview.community.corrections.models.CorrectionKind",
    },
    # Every answer the API gives is in the schema: the shared error responses are added
    # to each operation in one place (inferview.api.schema).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # One run operation per calculator, each with its own inputs (calculators.api_schema).
        "calculators.api_schema.expand_run_operations",
        "inferview.api.schema.add_error_responses",
        "inferview.api.schema.add_links",
    ],
}

# --- Static files and i18n ------------------------------------------------------------
STATIC_URL = "/static/"
# Diagrams live with the content they illustrate and are served under /static/diagrams/.
STATICFILES_DIRS = [BASE_DIR / "static", ("diagrams", BASE_DIR / "content" / "diagrams")]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing root
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Content Security Policy ----------------------------------------------------------
# No inline script anywhere: page scripts are static files and page data travels in
# <script type="application/json"> blocks, which browsers never execute. Inline style
# attributes stay allowed (progress bar widths, admin diffs); styles cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        # Redoc renders the schema in a web worker started from a blob: URL.
        "worker-src": ["'self'", "blob:"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"] + env_list("CSP_FORM_ACTION", "https://checkout.stripe.com"),
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
    }
}

# --- Logging --------------------------------------------------------------------------
# LOG_FORMAT=json writes one JSON object per line (production's default); every record
# carries the request id (inferview.requestlog).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "inferview.requestlog.RequestIdFilter"}},
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(request_id)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "json" if LOG_FORMAT == "json" else "text",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # One line per request is the access log; gunicorn's own is off in gunicorn.conf.py.
    "loggers": {"inferview.request": {"level": os.environ.get("REQUEST_LOG_LEVEL", "INFO")}},
}
