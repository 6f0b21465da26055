"""Ladder's settings: one module, configured by environment variables.

- ``DATABASE_URL``: default ``sqlite:///<project>/db.sqlite3``; PostgreSQL as
  ``postgres://user:password@host:5432/name`` (psycopg 3).
- ``DATABASE_REPLICA_URLS``: read replicas (PostgreSQL standbys of that primary), comma-separated;
  anonymous reads and API reads go to them (``ladder.caching.replicas``). Default: none.
- ``DATABASE_POOL``: Django's psycopg connection pool, per process: a number of connections, or
  ``min=2,max=10`` (default: off; PostgreSQL only).
- ``DJANGO_SECRET_KEY``: required when ``DJANGO_DEBUG`` is off.
- ``DJANGO_DEBUG``: off unless set to 1 (``make run`` sets it); without it the secret key is
  required.
- ``DJANGO_ALLOWED_HOSTS``: comma-separated (default ``localhost,127.0.0.1`` in debug).
- ``REDIS_URL``: the shared cache (throttling) in Redis; default: the database.
- ``LADDER_TRUSTED_PROXIES``: addresses or networks of the reverse proxies whose
  ``X-Forwarded-For`` is believed (default: none, the header is ignored).
- ``LADDER_RATING_METHOD``: ``fide`` (table 8.1.2, default) or ``elo`` (logistic formula).
- ``LADDER_CLUB_K``: a club K from 1 to 100 replacing FIDE's K eligibility (default: none).
- ``LADDER_RULES``: ``by-date`` (default: FIDE's rules in force when each tournament started),
  ``current`` (today's rules for the whole history) or a date ``YYYY-MM-DD`` (that day's).
- ``LADDER_LISTS``: the lists the club keeps, e.g. ``standard,rapid,blitz`` (default: all three).
- ``LADDER_RECOMPUTE``: where rating runs execute: ``immediate`` (default: in the process that
  made the change, right after its commit) or ``background`` (a database queue drained by
  ``manage.py rating_worker`` processes).
- ``LADDER_DATE_MONTHS_AHEAD``: games are dated no later than the end of the month this many
  months ahead (default 1: the end of next month).
- ``LADDER_EXCLUSIVE_REPLAY_PERIODS``: a full replay of at least this many periods (not a dry
  run) writes its rows without the rating table's index by player and builds it again at the
  end: faster at a federation's size, but the rating table is locked, reads included, until
  the replay commits (default 0: never; ``ratings.recompute.storage.player_index_aside``).
- ``LADDER_CORRECTION_WINDOW_DAYS``: days after a period's list is first published during
  which it may be reopened for corrections (default: none, no window); beyond them reopening
  needs the permission ``ladder.reopen_after_window``.
"""

import hashlib
import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

# The rules are plain Python (no Django): K's bounds are read from their one home.
from ratings.rules import eras
from ratings.rules.calculator import MAX_K, MIN_K
from ratings.rules.fide import LISTS, METHODS

BASE_DIR = Path(__file__).resolve().parent.parent


def _flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _whole(name: str, default: int, low: int, high: int) -> int:
    """Read a whole number from ``name`` (blank = ``default``), or stop the start with the
    variable's name and the values allowed: a bad value never waits for the first request."""
    value = _whole_or_none(name, low, high)
    return default if value is None else value


def _whole_or_none(name: str, low: int, high: int) -> int | None:
    """Read a whole number from ``name`` as ``_whole`` does; blank is None."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit() and low <= int(text) <= high):
        raise ImproperlyConfigured(
            f"{name} must be a whole number from {low} to {high} (it is {text!r})."
        )
    return int(text)


def _decimal(name: str, default: float, low: float, high: float) -> float:
    """Read a number (decimals allowed) from ``name``, as ``_whole`` does."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # also refuses nan and inf
        raise ImproperlyConfigured(
            f"{name} must be a number from {low} to {high} (it is {text!r})."
        )
    return value


_RATE_PERIODS = ("second", "minute", "hour", "day")


def _rate(name: str, default: str) -> str:
    """Read a throttle rate such as ``1000/hour`` (DRF reads the period's first letter)."""
    text = os.environ.get(name, "").strip() or default
    count, _, period = text.partition("/")
    if not (count.isascii() and count.isdigit() and int(count) > 0 and period in _RATE_PERIODS):
        raise ImproperlyConfigured(
            f"{name} must be a number of requests per second, minute, hour or day, "
            f"such as 1000/hour (it is {text!r})."
        )
    return text


_POOL_KEYS = {"min": "min_size", "max": "max_size", "timeout": "timeout"}


def _pool(name: str, database: Mapping[str, Any]) -> dict[str, int] | None:
    """Read a connection pool's sizes from ``name``: blank, ``0`` or ``off`` for none; a whole
    number N for a pool of N connections per process; or ``min=2,max=10`` (and ``timeout=S``,
    the seconds a request waits for a free connection, default 30). PostgreSQL only."""
    text = os.environ.get(name, "").strip().lower()
    if text in {"", "0", "off"}:
        return None
    if database["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(
            f"{name} pools PostgreSQL connections: set DATABASE_URL to a PostgreSQL database, "
            f"or leave {name} unset (it is {text!r})."
        )
    if database.get("CONN_MAX_AGE"):
        raise ImproperlyConfigured(
            f"{name} and DATABASE_CONN_MAX_AGE are two ways of keeping connections open: "
            f"with a pool, leave DATABASE_CONN_MAX_AGE unset or 0."
        )
    wrong = ImproperlyConfigured(
        f"{name} must be a whole number of connections from 1 to 1000, or sizes such as "
        f"min=2,max=10 (and timeout=30), or off (it is {text!r})."
    )
    if text.isascii() and text.isdigit():
        text = f"min={text}"
    sizes: dict[str, int] = {}
    for part in text.split(","):
        key, _, value = part.strip().partition("=")
        if key not in _POOL_KEYS or not (value.isascii() and value.isdigit()):
            raise wrong
        sizes[_POOL_KEYS[key]] = int(value)
    low, high = sizes.get("min_size", 1), sizes.setdefault("max_size", sizes.get("min_size", 1))
    if not (0 <= low <= high and 1 <= high <= 1000 and 1 <= sizes.get("timeout", 30) <= 600):
        raise wrong
    sizes["min_size"] = low
    return sizes


def _replicas(name: str, database: Mapping[str, Any]) -> list[dj_database_url.DBConfig]:
    """Read the read replicas' URLs from ``name`` (comma-separated): PostgreSQL standbys of
    the primary at DATABASE_URL, which must then be PostgreSQL too."""
    urls = [url.strip() for url in os.environ.get(name, "").split(",") if url.strip()]
    if urls and database["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(
            f"{name} names read replicas of a PostgreSQL primary: DATABASE_URL is not PostgreSQL."
        )
    replicas = []
    for url in urls:
        try:
            replica = dj_database_url.parse(url, conn_max_age=database.get("CONN_MAX_AGE", 0))
        except ValueError:
            replica = dj_database_url.DBConfig()
        if replica.get("ENGINE") != "django.db.backends.postgresql" or not replica.get("NAME"):
            raise ImproperlyConfigured(
                f"{name} must be PostgreSQL URLs separated by commas, such as "
                f"postgres://user@replica:5432/ladder (one of them is {url!r})."
            )
        replicas.append(replica)
    return replicas


# Fail closed: debug only when asked for (DJANGO_DEBUG=1), and without it a secret key is
# required. `make` targets set what they need (see ladder/settings_local.py).
DEBUG = _flag("DJANGO_DEBUG", default=False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set DJANGO_SECRET_KEY, or DJANGO_DEBUG=1 for development.")
    SECRET_KEY = "django-insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get(
        "DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else ""
    ).split(",")
    if host.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "axes",
    "csp",
    "django_tasks",
    "django_tasks_db",
    "ladder",
    "ratings",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "ladder.middleware.StripNulMiddleware",
    # Kept reads are answered here, before the rest (ladder/read_cache.py).
    "ladder.caching.read_cache.ReadCacheMiddleware",
    # Which database a request reads: a replica or the primary (ladder/caching/replicas.py).
    "ladder.caching.replicas.ReplicaReadsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language a request is answered in: the switcher's cookie, else Accept-Language
    # (pages and the API alike); after the session, before CommonMiddleware (Django's order).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-simple-history's, for the requests that may write (ladder/middleware.py).
    "ladder.middleware.history_request_middleware",
    # django-csp's, the policy built once (ladder/middleware.py).
    "ladder.middleware.ContentSecurityPolicyMiddleware",
    # Last, as django-axes asks: it answers a locked-out login.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "ladder.urls"

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
                "django.template.context_processors.i18n",
                "ladder.web.context_processors.freshness",
                "ladder.web.context_processors.site_urls",
            ],
        },
    },
    {
        # The longest loops of the pages (a row a player, period or game), rendered into the
        # Django pages above by Jinja2 (ladder/web/jinja.py says why). The views ask for it by
        # name (ladder.web.views.jinja_rows); a template's name alone finds Django's first.
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"environment": "ladder.web.jinja.environment"},
    },
]

WSGI_APPLICATION = "ladder.wsgi.application"
ASGI_APPLICATION = "ladder.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=_whole("DATABASE_CONN_MAX_AGE", 0, 0, 86_400),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for a writer instead of failing at once: recomputes and result entry may overlap.
    # Transactions take the write lock when they begin, so writers are serialized whole: a
    # check (duplicates, closed periods) and its write never interleave with another writer's.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )

# Django's own psycopg pool, per process (DATABASE_POOL: off by default; PostgreSQL only).
DATABASE_POOL = _pool("DATABASE_POOL", DATABASES["default"])
if DATABASE_POOL:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = DATABASE_POOL

# Read replicas (ladder.caching.replicas): aliases replica_1, replica_2, ... in the order given.
# A replica is tried with a short connect timeout and skipped for LADDER_REPLICA_RETRY_SECONDS
# when it does not answer; in tests each is a mirror of default (Django's TEST MIRROR): no test
# database is made on a standby, which streams the primary's.
LADDER_REPLICA_CONNECT_SECONDS = _whole("LADDER_REPLICA_CONNECT_SECONDS", 2, 1, 60)
for _number, _replica in enumerate(
    _replicas("DATABASE_REPLICA_URLS", DATABASES["default"]), start=1
):
    _options = _replica.setdefault("OPTIONS", {})
    _options.setdefault("connect_timeout", LADDER_REPLICA_CONNECT_SECONDS)
    if DATABASE_POOL:  # a replica that stops answering costs a request the connect timeout
        _options["pool"] = {**DATABASE_POOL, "timeout": LADDER_REPLICA_CONNECT_SECONDS}
        _replica["CONN_HEALTH_CHECKS"] = True  # the pool checks a connection before lending it
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica_{_number}"] = _replica
LADDER_REPLICAS = [alias for alias in DATABASES if alias != "default"]

# The reads compiled once (ladder.records.compiled), and a correction's reads of each period it
# reaches (ratings.recompute.reached), run as prepared statements on PostgreSQL, planned once
# per connection rather than on every call. Off behind a pooler that lends a
# session to each transaction and does not keep prepared statements (PgBouncer before 1.21,
# or without max_prepared_statements). Django turns psycopg's prepared statements off
# (prepare_threshold None); on, they are still made only for those reads: Django's other
# queries bind on the client, which never prepares.
LADDER_PREPARED_READS = _flag("LADDER_PREPARED_READS", default=True)
if LADDER_PREPARED_READS:
    for _database in DATABASES.values():
        if _database["ENGINE"] == "django.db.backends.postgresql":
            _database.setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
# Seconds a client's reads stay on the primary after it wrote (its Ladder-Pin cookie or
# header), and seconds a replica that did not answer is left out before it is tried again.
LADDER_REPLICA_PIN_SECONDS = _whole("LADDER_REPLICA_PIN_SECONDS", 5, 1, 3600)
LADDER_REPLICA_RETRY_SECONDS = _whole("LADDER_REPLICA_RETRY_SECONDS", 10, 1, 3600)
DATABASE_ROUTERS = ["ladder.caching.replicas.ReplicaRouter"] if LADDER_REPLICAS else []

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A cache shared by every worker and machine (the API throttle counts in it): the database by
# default (its table is created by migration ladder 0009), Redis when REDIS_URL is set.
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
if REDIS_URL:
    # One Redis may serve several databases (staging beside production): every key is
    # prefixed with the database it belongs to, so none reads another's data version.
    _database = DATABASES["default"]
    _where = f"{_database.get('HOST', '')}:{_database.get('PORT', '')}/{_database.get('NAME', '')}"
    CACHES = {
        "default": {
            "BACKEND": "ladder.caching.backends.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "ladder-" + hashlib.blake2b(_where.encode(), digest_size=6).hexdigest(),
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "ladder.caching.backends.DatabaseCache",
            "LOCATION": "ladder_cache",
        }
    }

# Proxies whose X-Forwarded-For is believed (addresses or networks, comma-separated); without
# them the client is the connection's peer and the header is ignored (ladder/clients.py).
LADDER_TRUSTED_PROXIES = [
    proxy.strip() for proxy in os.environ.get("LADDER_TRUSTED_PROXIES", "").split(",")
    if proxy.strip()
]  # fmt: skip
try:
    for _proxy in LADDER_TRUSTED_PROXIES:
        ipaddress.ip_network(_proxy, strict=False)
except ValueError as _error:
    raise ImproperlyConfigured(f"LADDER_TRUSTED_PROXIES: {_error}.") from _error

# Admin login lockout (django-axes): after LADDER_LOGIN_FAILURES failed logins from one client
# address (ladder/clients.py: X-Forwarded-For only from trusted proxies), that address is
# refused for LADDER_LOCKOUT_HOURS; `manage.py axes_reset_ip ADDRESS` lifts it at once.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = _whole("LADDER_LOGIN_FAILURES", 5, 1, 1000)
AXES_COOLOFF_TIME = _decimal("LADDER_LOCKOUT_HOURS", 1.0, 0.01, 24 * 365)
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_CLIENT_IP_CALLABLE = "ladder.caching.clients.client_ip"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False

# Behind HTTPS (LADDER_HTTPS=1, every deployment): secure cookies, HSTS, a redirect to HTTPS,
# and the proxy's X-Forwarded-Proto believed; `manage.py check --deploy` is then clean.
LADDER_HTTPS = _flag("LADDER_HTTPS")
if LADDER_HTTPS:
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = _flag("LADDER_SSL_REDIRECT", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
    SECURE_HSTS_SECONDS = _whole(
        "LADDER_HSTS_SECONDS", 60 * 60 * 24 * 365, 0, 10 * 60 * 60 * 24 * 365
    )
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _flag("LADDER_HSTS_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = _flag("LADDER_HSTS_PRELOAD")
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]

# Content Security Policy (django-csp): everything from this site only; no inline script or
# style anywhere (the pages, the admin). The API docs (Swagger UI, Redoc) are relaxed in
# ladder/api/urls.py for what those tools inject.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The languages every page, the admin's own texts, the API's error messages and the commands'
# messages are translated into (locale/<code>/LC_MESSAGES/django.po; docs/translations.md).
LANGUAGES = [
    ("en", "English"),
    ("de", "Deutsch"),
    ("fr", "Français"),
]
# The club's language: what a request that asks for none is answered in, and the commands'
# messages (LADDER_LANGUAGE=de, fr; English by default).
LANGUAGE_CODE = os.environ.get("LADDER_LANGUAGE", "").strip().lower() or "en"
if LANGUAGE_CODE not in dict(LANGUAGES):
    raise ImproperlyConfigured(f"LADDER_LANGUAGE must be en, de or fr (it is {LANGUAGE_CODE!r}).")
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

LOGIN_URL = "admin:login"
# Where a login lands when its "next" is unsafe or missing (the default, /accounts/profile/, is a
# 404 here): only staff can log in, through the admin.
LOGIN_REDIRECT_URL = "admin:index"

REST_FRAMEWORK = {
    # drf-spectacular's, plus the validators' constraints and the reads open to everyone.
    "DEFAULT_SCHEMA_CLASS": "ladder.api.schema.PublicReadsSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so that an anonymous request is answered 401 with WWW-Authenticate.
        "ladder.api.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "ladder.api.filters.StableOrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "ladder.api.pagination.PageNumbers",
    "PAGE_SIZE": 50,
    # JSON only (with a size and depth limit: a 400, not a 500), so that the schema declares
    # one request body per write and a generated client sends it; any other body is a 415
    # naming what the endpoint reads. The tournament import takes its file as multipart.
    "DEFAULT_PARSER_CLASSES": ["ladder.api.parsers.LimitedJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "ladder.api.parsers.NamedMediaTypesNegotiation",
    # DRF's JSON written by orjson (ladder/api/renderers.py), and DRF's browsable API.
    "DEFAULT_RENDERER_CLASSES": [
        "ladder.api.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # The test client sends what the API reads.
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_THROTTLE_CLASSES": ["ladder.caching.throttling.AnonThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon": _rate("LADDER_ANON_THROTTLE", "1000/hour")},
}
# Seconds a process may let a client's requests through on what it last read of the client's
# count, counting them in the shared store with the next one it counts (at most a sixteenth of
# what the client has left; 0: every request counted in the store as it comes).
LADDER_THROTTLE_SYNC_SECONDS = _whole("LADDER_THROTTLE_SYNC_SECONDS", 1, 0, 60)

SPECTACULAR_SETTINGS = {
    "TITLE": "Ladder API",
    "DESCRIPTION": (
        "A chess club's rating ladder, rated the way FIDE rates its list.\n\n"
        "**Reads are public.** **Writes need a token**: ask a club administrator for one. It is "
        "issued in the admin (*Api tokens → Add api token*, the key shown once) or with "
        "`manage.py issue_token USERNAME`, and sent as `Authorization: Token <key>`; a "
        "logged-in admin session works too.\n\n"
        "[Back to the site](/) · [the admin](/admin/) · [Swagger UI](/api/v1/docs/) · "
        "[Redoc](/api/v1/redoc/) · [the schema](/api/v1/schema/)"
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # A request component apart from the response one (GameRequest beside Game): a generated
    # client builds a new game without the server's own fields (id, period, created...).
    "COMPONENT_SPLIT_REQUEST": True,
}

# API tokens (hashed at rest) are valid this many days unless issued with --days.
LADDER_TOKEN_DAYS = _whole("LADDER_TOKEN_DAYS", 90, 1, 3650)

LADDER_RATING_METHOD = os.environ.get("LADDER_RATING_METHOD", "fide")
# FIDE's rules as they were on each day (by-date, the default), or one day's rule set for the
# whole history ("current": today's; or a date, YYYY-MM-DD): ratings.rules.eras.
LADDER_EXCLUSIVE_REPLAY_PERIODS = _whole("LADDER_EXCLUSIVE_REPLAY_PERIODS", 0, 0, 1_000_000)
LADDER_RULES = os.environ.get("LADDER_RULES", eras.RULES_BY_DATE)
try:
    LADDER_RULES_FIXED = eras.parse_rules_setting(LADDER_RULES)
except ValueError as error:
    raise ImproperlyConfigured(f"LADDER_RULES: {error}") from None
LADDER_CLUB_K = _whole_or_none("LADDER_CLUB_K", MIN_K, MAX_K)
if LADDER_RATING_METHOD not in METHODS:
    raise ImproperlyConfigured("LADDER_RATING_METHOD must be 'fide' or 'elo'.")

# The lists the club keeps (FIDE.md 9), in FIDE's order; a club that keeps one sees no selector.
_kept = {
    name.strip().lower() for name in os.environ.get("LADDER_LISTS", ",".join(LISTS)).split(",")
}
_kept.discard("")
if not _kept or _kept - set(LISTS):
    raise ImproperlyConfigured(
        "LADDER_LISTS must name one or more of standard, rapid, blitz, separated by commas."
    )
LADDER_LISTS = [name for name in LISTS if name in _kept]

# Rating runs execute through Django's task interface (the django-tasks backport on 5.2).
LADDER_RECOMPUTE = os.environ.get("LADDER_RECOMPUTE", "immediate").strip().lower()
_TASK_BACKENDS = {
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
    "background": "django_tasks_db.DatabaseBackend",
}
if LADDER_RECOMPUTE not in _TASK_BACKENDS:
    raise ImproperlyConfigured("LADDER_RECOMPUTE must be 'immediate' or 'background'.")
TASKS = {"default": {"BACKEND": _TASK_BACKENDS[LADDER_RECOMPUTE]}}

# Games are dated no later than the end of the month this many months ahead (default 1: the
# end of next month); a date years ahead would make its year the current one on every page.
LADDER_DATE_MONTHS_AHEAD = _whole("LADDER_DATE_MONTHS_AHEAD", 1, 0, 120)

# The correction window (FIDE and the Dutch federation accept corrections only for a while after
# publication): a period may be reopened this many days after its list was first published;
# later only by holders of ladder.reopen_after_window (ladder.writes.correction_window). None: no
# window.
_window = os.environ.get("LADDER_CORRECTION_WINDOW_DAYS", "").strip()
if _window and not (_window.isascii() and _window.isdigit() and int(_window) <= 3650):
    raise ImproperlyConfigured(
        "LADDER_CORRECTION_WINDOW_DAYS must be a whole number of days from 0 to 3650, "
        "or empty for no window."
    )
LADDER_CORRECTION_WINDOW_DAYS = int(_window) if _window else None

_LOG_LEVEL = os.environ.get("DJANGO_LOG_LEVEL", "").strip().upper() or "WARNING"
if _LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"DJANGO_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL (it is {_LOG_LEVEL!r})."
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": _LOG_LEVEL},
}


# --- the read cache (ladder.caching.read_cache; the cache itself is CACHES above)
# ---------------------
# How long an anonymous read's answer is kept under one data version (0: never kept). A
# version ends with the next write or rating run; this bounds an answer whose bump was lost.
LADDER_READ_CACHE_SECONDS = _whole("LADDER_READ_CACHE_SECONDS", 300, 0, 86_400)
# What one client (address) may add to the read cache in an hour: answers past it are served
# but not kept, so a stream of distinct queries cannot fill the cache.
LADDER_READ_CACHE_CLIENT_ENTRIES = _whole("LADDER_READ_CACHE_CLIENT_ENTRIES", 200, 0, 1_000_000)

# /healthz says "degraded" when a rating run has waited longer than this (ladder/web/health.py).
LADDER_HEALTH_RUN_SECONDS = _whole("LADDER_HEALTH_RUN_SECONDS", 600, 1, 86_400)
# Immediate mode: each serving process sweeps this often for rating runs nobody executes (a
# process killed after its commit left them); 0 turns the sweeper off (ratings/runs/sweeper.py).
LADDER_RUN_SWEEP_SECONDS = _whole("LADDER_RUN_SWEEP_SECONDS", 30, 0, 86_400)

# The club's name, shown in every page's header and title and in the admin (issue 13).
LADDER_CLUB_NAME = os.environ.get("LADDER_CLUB_NAME", "").strip() or "Ladder"
