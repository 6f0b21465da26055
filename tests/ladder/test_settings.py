"""Every setting is read and checked when the settings load: a bad value stops the start with
ImproperlyConfigured naming the variable and the values allowed, never a ValueError at the
first request. The settings module is loaded afresh here, under a changed environment."""

import runpy
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

SETTINGS = Path(__file__).resolve().parents[2] / "ladder" / "settings.py"
BASE = {"DJANGO_SECRET_KEY": "a-test-key", "DJANGO_DEBUG": "0"}


def load(monkeypatch, **env: str) -> dict:
    for name in list(__import__("os").environ):
        if name.startswith(("DJANGO_", "LADDER_", "DATABASE_", "REDIS_URL")):
            monkeypatch.delenv(name)
    for name, value in {**BASE, **env}.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS))


BAD = [
    ("LADDER_ANON_THROTTLE", "abc", "such as 1000/hour"),
    ("LADDER_ANON_THROTTLE", "1000/fortnight", "per second, minute, hour or day"),
    ("LADDER_ANON_THROTTLE", "0/hour", "per second, minute, hour or day"),
    ("LADDER_THROTTLE_SYNC_SECONDS", "61", "a whole number from 0 to 60"),
    ("LADDER_THROTTLE_SYNC_SECONDS", "half", "a whole number from 0 to 60"),
    ("LADDER_LOGIN_FAILURES", "five", "a whole number from 1 to 1000"),
    ("LADDER_LOCKOUT_HOURS", "an hour", "a number from 0.01 to 8760"),
    ("LADDER_LOCKOUT_HOURS", "inf", "a number from 0.01 to 8760"),
    ("LADDER_TOKEN_DAYS", "ninety", "a whole number from 1 to 3650"),
    ("LADDER_TOKEN_DAYS", "0", "a whole number from 1 to 3650"),
    ("LADDER_READ_CACHE_SECONDS", "-5", "a whole number from 0 to 86400"),
    ("DATABASE_CONN_MAX_AGE", "forever", "a whole number from 0 to 86400"),
    ("LADDER_CLUB_K", "twenty", "a whole number from 1 to 100"),
    ("LADDER_CLUB_K", "101", "a whole number from 1 to 100"),
    ("LADDER_DATE_MONTHS_AHEAD", "²", "a whole number from 0 to 120"),
    ("LADDER_HSTS_SECONDS", "1e9", "a whole number from 0 to"),
    ("DJANGO_LOG_LEVEL", "LOUD", "DEBUG, INFO, WARNING, ERROR or CRITICAL"),
    ("LADDER_RATING_METHOD", "glicko", "'fide' or 'elo'"),
    ("LADDER_RULES", "someday", "'someday' is neither 'by-date', 'current' nor a day"),
    ("LADDER_LISTS", "bullet", "one or more of standard, rapid, blitz"),
    ("LADDER_RECOMPUTE", "later", "'immediate' or 'background'"),
    ("LADDER_CORRECTION_WINDOW_DAYS", "thirty", "from 0 to 3650"),
]


@pytest.mark.parametrize(("name", "value", "allowed"), BAD)
def test_a_bad_value_stops_the_start_naming_the_variable(monkeypatch, name, value, allowed):
    env = {name: value}
    if name == "LADDER_HSTS_SECONDS":
        env["LADDER_HTTPS"] = "1"
    with pytest.raises(ImproperlyConfigured) as refused:
        load(monkeypatch, **env)

    assert name in str(refused.value)
    assert allowed in str(refused.value)


def test_the_defaults_load(monkeypatch):
    loaded = load(monkeypatch)

    assert loaded["AXES_FAILURE_LIMIT"] == 5
    assert loaded["AXES_COOLOFF_TIME"] == 1.0
    assert loaded["LADDER_TOKEN_DAYS"] == 90
    assert loaded["LADDER_CLUB_K"] is None
    assert loaded["LADDER_READ_CACHE_SECONDS"] == 300
    assert loaded["REST_FRAMEWORK"]["DEFAULT_THROTTLE_RATES"] == {"anon": "1000/hour"}
    assert loaded["LADDER_THROTTLE_SYNC_SECONDS"] == 1


def test_good_values_are_read(monkeypatch):
    loaded = load(
        monkeypatch,
        LADDER_ANON_THROTTLE="50/minute",
        LADDER_LOCKOUT_HOURS="0.5",
        LADDER_CLUB_K="16",
        DATABASE_CONN_MAX_AGE="60",
        DJANGO_LOG_LEVEL="info",
    )

    assert loaded["REST_FRAMEWORK"]["DEFAULT_THROTTLE_RATES"] == {"anon": "50/minute"}
    assert loaded["AXES_COOLOFF_TIME"] == 0.5
    assert loaded["LADDER_CLUB_K"] == 16
    assert loaded["DATABASES"]["default"]["CONN_MAX_AGE"] == 60
    assert loaded["LOGGING"]["root"]["level"] == "INFO"


def test_two_databases_on_one_redis_never_share_a_key(monkeypatch):
    redis = "redis://127.0.0.1:6379/0"
    prefixes = {
        load(monkeypatch, REDIS_URL=redis, DATABASE_URL=f"postgres://u@db:5432/{name}")["CACHES"][
            "default"
        ]["KEY_PREFIX"]
        for name in ("production", "staging")
    }

    assert len(prefixes) == 2


POSTGRES = "postgres://u@db:5432/ladder"
BAD_DATABASES = [
    ({"DATABASE_POOL": "4"}, "DATABASE_POOL", "set DATABASE_URL to a PostgreSQL database"),
    (
        {"DATABASE_URL": POSTGRES, "DATABASE_POOL": "lots"},
        "DATABASE_POOL",
        "a whole number of connections from 1 to 1000, or sizes such as min=2,max=10",
    ),
    ({"DATABASE_URL": POSTGRES, "DATABASE_POOL": "min=5,max=2"}, "DATABASE_POOL", "min=2,max=10"),
    ({"DATABASE_URL": POSTGRES, "DATABASE_POOL": "size=3"}, "DATABASE_POOL", "min=2,max=10"),
    ({"DATABASE_URL": POSTGRES, "DATABASE_POOL": "max=0"}, "DATABASE_POOL", "min=2,max=10"),
    (
        {"DATABASE_URL": POSTGRES, "DATABASE_POOL": "4", "DATABASE_CONN_MAX_AGE": "60"},
        "DATABASE_CONN_MAX_AGE",
        "leave DATABASE_CONN_MAX_AGE unset or 0",
    ),
    (
        {"DATABASE_REPLICA_URLS": "postgres://u@replica:5432/ladder"},
        "DATABASE_REPLICA_URLS",
        "DATABASE_URL is not PostgreSQL",
    ),
    (
        {"DATABASE_URL": POSTGRES, "DATABASE_REPLICA_URLS": "replica:5432"},
        "DATABASE_REPLICA_URLS",
        "PostgreSQL URLs separated by commas",
    ),
    (
        {"DATABASE_URL": POSTGRES, "DATABASE_REPLICA_URLS": "sqlite:///copy.sqlite3"},
        "DATABASE_REPLICA_URLS",
        "PostgreSQL URLs separated by commas",
    ),
    (
        {
            "DATABASE_URL": POSTGRES,
            "DATABASE_REPLICA_URLS": POSTGRES,
            "LADDER_REPLICA_PIN_SECONDS": "a few",
        },
        "LADDER_REPLICA_PIN_SECONDS",
        "a whole number from 1 to 3600",
    ),  # fmt: skip
    ({"LADDER_REPLICA_RETRY_SECONDS": "0"}, "LADDER_REPLICA_RETRY_SECONDS", "from 1 to 3600"),
    ({"LADDER_REPLICA_CONNECT_SECONDS": "90"}, "LADDER_REPLICA_CONNECT_SECONDS", "from 1 to 60"),
]


@pytest.mark.parametrize(("env", "name", "allowed"), BAD_DATABASES)
def test_a_bad_database_setting_stops_the_start(monkeypatch, env, name, allowed):
    with pytest.raises(ImproperlyConfigured) as refused:
        load(monkeypatch, **env)

    assert name in str(refused.value)
    assert allowed in str(refused.value)


@pytest.mark.parametrize(
    ("value", "pool"),
    [
        ("4", {"min_size": 4, "max_size": 4}),
        ("min=2,max=10", {"min_size": 2, "max_size": 10}),
        ("max=8, timeout=5", {"min_size": 1, "max_size": 8, "timeout": 5}),
        ("off", None),
    ],
)
def test_the_pool_is_read_into_the_databases_options(monkeypatch, value, pool):
    loaded = load(monkeypatch, DATABASE_URL=POSTGRES, DATABASE_POOL=value)

    assert loaded["DATABASES"]["default"].get("OPTIONS", {}).get("pool") == pool


def test_replicas_are_mirrors_in_tests_and_routed_behind_the_primary(monkeypatch):
    loaded = load(
        monkeypatch,
        DATABASE_URL=POSTGRES,
        DATABASE_REPLICA_URLS="postgres://u@r1:5432/ladder, postgres://u@r2:5432/ladder",
        DATABASE_POOL="min=1,max=4",
    )

    databases = loaded["DATABASES"]
    assert list(databases) == ["default", "replica_1", "replica_2"]
    assert loaded["LADDER_REPLICAS"] == ["replica_1", "replica_2"]
    assert databases["replica_2"]["HOST"] == "r2"
    assert databases["replica_1"]["TEST"] == {"MIRROR": "default"}
    assert databases["replica_1"]["OPTIONS"]["connect_timeout"] == 2
    assert databases["replica_1"]["CONN_HEALTH_CHECKS"]
    assert databases["replica_1"]["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 4, "timeout": 2}
    assert loaded["DATABASE_ROUTERS"] == ["ladder.caching.replicas.ReplicaRouter"]


def test_without_replicas_there_is_no_router(monkeypatch):
    loaded = load(monkeypatch, DATABASE_URL=POSTGRES)

    assert list(loaded["DATABASES"]) == ["default"]
    assert loaded["DATABASE_ROUTERS"] == []
