"""A database of its own for a script (benchmarks, the attack run), made afresh each time.

On the PostgreSQL server of DATABASE_URL a database named for the script, dropped and created;
without PostgreSQL a SQLite file beside the project. The caller's data is never touched.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def url_for(name: str, sqlite_file: str) -> str:
    """The URL of the script's database: ``name`` on DATABASE_URL's PostgreSQL server, else the
    SQLite file ``sqlite_file`` in the project folder."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))
    return f"sqlite:///{ROOT / sqlite_file}"


def recreate(url: str) -> None:
    """Drop the database at ``url`` (a URL from ``url_for``) and make it again, empty."""
    if url.startswith("sqlite"):
        Path(urlsplit(url).path).unlink(missing_ok=True)
        return
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    server = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(server.replace("postgres://", "postgresql://", 1), autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}"')
        c.execute(f'CREATE DATABASE "{name}"')
