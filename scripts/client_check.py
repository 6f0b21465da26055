"""Generate a Python client from the live OpenAPI schema and use it as another tool would.

Starts a real server (runserver, DEBUG off) on a free local port with a throwaway SQLite
database (migrate, the demo club from ``seed_demo``, a token from ``issue_token``), generates a
client with openapi-python-client from ``/api/v1/schema/`` into a temporary folder (never
committed), imports every module of it, and with it and the token alone: reads every resource,
creates a game, previews a correction with ``dry_run``, corrects it, deletes it, uses the
calculator, pages through a list and checks an ETag round trip (If-None-Match -> 304, and a
new ETag once a write has changed the data). Exits 1 with a sentence naming the step on any
failure, 0 when everything worked.

    .venv/bin/python scripts/client_check.py
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PACKAGE = "ladder_client"
# No formatter run over the generated code: it is read by Python only, and thrown away.
GENERATOR_CONFIG = f"package_name_override: {PACKAGE}\npost_hooks: []\n"


class CheckFailed(Exception):
    """A step of the check went wrong; the message says which and how."""


def main() -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ladder-client-") as folder:
        work = Path(folder)
        server: subprocess.Popen | None = None
        try:
            env = _environment(work)
            _manage(env, "migrate", "--noinput", "-v", "0")
            _manage(env, "seed_demo", "-v", "0")
            token = _manage(env, "issue_token", "admin", "--name", "client check").strip()
            port = _free_port()
            base = f"http://127.0.0.1:{port}"
            server = _serve(env, port, work / "server.log")
            _wait_for(base, server, work / "server.log")
            client = _generate(base, work)
            _step("every module of the client imports", lambda: _import_all(client))
            Checks(client, base, token).run()
        except CheckFailed as failure:
            print(f"FAIL: {failure}", file=sys.stderr)
            return 1
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=10)
            sys.modules.pop(PACKAGE, None)
    print(f"== the generated client did everything in {time.monotonic() - started:.1f} s")
    return 0


def _environment(work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ladder.settings",
        "DATABASE_URL": f"sqlite:///{work / 'ladder.sqlite3'}",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "client-check",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "LADDER_ANON_THROTTLE": "1000000/hour",
        "LADDER_RECOMPUTE": "immediate",
    }


def _manage(env: dict[str, str], *args: str) -> str:
    print(f"== manage.py {' '.join(args)}", flush=True)
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise CheckFailed(f"manage.py {args[0]} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    print(f"== serving on 127.0.0.1:{port}", flush=True)
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _wait_for(base: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise CheckFailed(f"the server exited {server.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/api/v1/schema/", timeout=5).status_code == httpx.codes.OK:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise CheckFailed(f"the server did not answer {base}/api/v1/schema/ within 60 s")


def _generate(base: str, work: Path) -> ModuleType:
    """Generate the client from the live schema; any warning of the generator is a failure
    (it means an endpoint or a model it could not generate)."""
    print("== openapi-python-client generate", flush=True)
    config = work / "generator.yml"
    config.write_text(GENERATOR_CONFIG)
    generator = BIN / "openapi-python-client"
    done = subprocess.run(
        [
            str(generator if generator.exists() else "openapi-python-client"),
            "generate",
            "--url",
            f"{base}/api/v1/schema/?format=json",
            "--config",
            str(config),
            "--meta",
            "none",
            "--output-path",
            str(work / PACKAGE),
        ],
        capture_output=True,
        text=True,
    )
    said = (done.stdout + done.stderr).strip()
    if done.returncode or "warning" in said.lower() or "error" in said.lower():
        raise CheckFailed(f"openapi-python-client exited {done.returncode}: {said[-3000:]}")
    sys.path.insert(0, str(work))
    return importlib.import_module(PACKAGE)


def _import_all(client: ModuleType) -> None:
    for module in pkgutil.walk_packages(client.__path__, f"{PACKAGE}."):
        try:
            importlib.import_module(module.name)
        except Exception as error:  # noqa: BLE001  # every import problem is the failure
            raise CheckFailed(f"{module.name} does not import: {error!r}") from error


def _step(what: str, run: Callable[[], Any]) -> Any:
    started = time.monotonic()
    try:
        found = run()
    except CheckFailed as failure:
        raise CheckFailed(f"{what}: {failure}") from failure
    except Exception as error:  # the generated code raised: a schema the client cannot read
        raise CheckFailed(f"{what}: the client raised {error!r}") from error
    print(f"ok   {what} ({time.monotonic() - started:.2f} s)", flush=True)
    return found


def _is_read(module: ModuleType) -> bool:
    """Whether a generated operation module sends a GET."""
    return '"method": "get"' in inspect.getsource(module._get_kwargs)


def expect(response: Any, status: int) -> Any:
    """The parsed answer of a ``sync_detailed`` call that answered ``status``."""
    if response.status_code != status:
        body = response.content.decode(errors="replace")[:500]
        raise CheckFailed(f"answered {int(response.status_code)}, not {status}: {body}")
    return response.parsed


class Checks:
    """What a tool does with the generated client; only the token is given by hand."""

    def __init__(self, client: ModuleType, base: str, token: str) -> None:
        self.api = importlib.import_module(f"{PACKAGE}.api")
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.authed = client.AuthenticatedClient(base_url=base, token=token, prefix="Token")
        self.anonymous = client.Client(base_url=base)
        self.called: set[str] = set()

    def _op(self, name: str) -> Any:
        group, _, _ = name.partition(".")
        module = importlib.import_module(f"{PACKAGE}.api.{group}.{name.replace('.', '_')}")
        self.called.add(module.__name__)
        return module

    def call(self, name: str, status: int, /, *, via: Any = None, **kwargs: Any) -> Any:
        """Call the operation ``group.operation`` (e.g. ``games.retrieve``) as ``via`` (default:
        with the token) and expect ``status``."""
        response = self._op(name).sync_detailed(client=via or self.authed, **kwargs)
        return expect(response, status)

    def run(self) -> None:
        etag = _step("an ETag round trip (If-None-Match -> 304)", self.etag_round_trip)
        players = _step("read every resource", self.read_everything)
        game = _step("create a game", lambda: self.create_game(players))
        _step("preview a correction (dry_run)", lambda: self.preview_correction(game))
        _step("correct the game", lambda: self.correct(game))
        _step("the write changed the ETag", lambda: self.etag_changed(etag))
        _step("delete the game", lambda: self.delete(game))
        _step("the calculator", self.calculate)
        _step("page through the games", self.page_through_games)
        _step("no read of the client was left out", self.every_read_made)

    def every_read_made(self) -> None:
        """Fail when the client has a GET operation this check never called (a resource added
        to the API since): "read every resource" stays true."""
        reads = {
            module.name
            for module in pkgutil.walk_packages(self.api.__path__, f"{PACKAGE}.api.")
            if not module.ispkg and _is_read(importlib.import_module(module.name))
        }
        left = sorted(name.removeprefix(f"{PACKAGE}.api.") for name in reads - self.called)
        if left:
            raise CheckFailed(f"these reads were never made; add them to read_everything: {left}")

    def etag_round_trip(self) -> str:
        first = self._op("rating_list.list").sync_detailed(client=self.anonymous)
        expect(first, httpx.codes.OK)
        etag = first.headers.get("ETag")
        if not etag:
            raise CheckFailed("the rating list answered no ETag")
        again = self.anonymous.with_headers({"If-None-Match": etag})
        expect(self._op("rating_list.list").sync_detailed(client=again), httpx.codes.NOT_MODIFIED)
        return str(etag)

    def etag_changed(self, etag: str) -> None:
        stale = self.anonymous.with_headers({"If-None-Match": etag})
        response = self._op("rating_list.list").sync_detailed(client=stale)
        expect(response, httpx.codes.OK)
        if response.headers.get("ETag") in (None, etag):
            raise CheckFailed(f"the ETag after a write is {response.headers.get('ETag')}")

    def read_everything(self) -> list[Any]:
        ok = httpx.codes.OK
        players = self.call("players.list", ok, ordering="-rating").results
        if len(players) < 2:
            raise CheckFailed(f"the demo club has {len(players)} players")
        first = self.call("players.retrieve", ok, id=players[0].id)
        if first.name != players[0].name:
            raise CheckFailed(f"player {players[0].id} reads as {first.name!r}")
        self.call("players.history_list", ok, id=first.id)
        games = self.call("games.list", ok).results
        self.call("games.retrieve", ok, id=games[0].id)
        periods = self.call("periods.list", ok).results
        report = self.call("periods.retrieve", ok, id=periods[-1].id).report
        if not report:
            raise CheckFailed(f"period {periods[-1].label} has an empty report")
        self.call("rating_list.list", ok, period=periods[-1].id)
        runs = self.call("rating_runs.list", ok).results
        self.call("rating_runs.retrieve", ok, id=runs[0].id)
        self.call("freshness.retrieve", ok)
        self.call("players.rating_retrieve", ok, id=first.id)
        self.call("players.head_to_head_retrieve", ok, id=players[0].id, other=players[1].id)
        self.call("rules.retrieve", ok)
        tournaments = self.call("tournaments.list", ok).results
        self.call("tournaments.retrieve", ok, id=tournaments[0].id)
        self.call("bulk.rating_list_retrieve", ok)
        self.call("bulk.players_history_retrieve", ok, id=first.id)
        self.base_correction(first, periods)
        event = next(g.event for g in games if g.event)
        exported = self._op("tournaments.export_retrieve").sync_detailed(
            client=self.authed, event=event
        )
        expect(exported, ok)
        if not exported.content.startswith(b"012 "):
            raise CheckFailed(f"the export of {event!r} is no TRF: {exported.content[:80]!r}")
        return players

    def base_correction(self, player: Any, periods: list[Any]) -> None:
        """Record a base correction in the open period, read it back, list it, delete it."""
        m = self.models
        open_period = next(p for p in periods if str(p.status) == "open")
        body = m.BaseCorrectionRequest(
            player=player.id, period=open_period.label, rating=2000, reason="Client check"
        )
        made = self.call("base_corrections.create", httpx.codes.CREATED, body=body)
        again = self.call("base_corrections.retrieve", httpx.codes.OK, id=made.id)
        if again.rating != 2000:
            raise CheckFailed(f"the base correction came back as {again.to_dict()}")
        self.call("base_corrections.list", httpx.codes.OK)
        self.call("base_corrections.destroy", httpx.codes.NO_CONTENT, id=made.id)

    def create_game(self, players: list[Any]) -> Any:
        m = self.models
        status = m.PeriodsListStatus("open")
        open_period = self.call("periods.list", httpx.codes.OK, status=status).results[0]
        body = m.GameRequest(
            date=open_period.start,  # the demo club's open month, which has begun
            white=players[0].id,
            black=players[1].id,
            result=m.ResultEnum("1/2-1/2"),
            event="Client check",
            round_="1",
        )
        game = self.call("games.create", httpx.codes.CREATED, body=body)
        if game.period.id != open_period.id or game.white.id != players[0].id:
            raise CheckFailed(f"the game came back as {game.to_dict()}")
        return game

    def preview_correction(self, game: Any) -> None:
        body = self.models.PatchedGameRequest(result=self.models.ResultEnum("1-0"))
        preview = self.call("games.partial_update", httpx.codes.OK, id=game.id, body=body,
                            dry_run=True)  # fmt: skip
        if not isinstance(preview, self.models.Preview) or not preview.players:
            raise CheckFailed(f"the dry run answered {preview!r}")
        unchanged = self.call("games.retrieve", httpx.codes.OK, id=game.id)
        if unchanged.result != "1/2-1/2":
            raise CheckFailed(f"the dry run changed the result to {unchanged.result}")

    def correct(self, game: Any) -> None:
        body = self.models.PatchedGameRequest(result=self.models.ResultEnum("1-0"))
        corrected = self.call("games.partial_update", httpx.codes.OK, id=game.id, body=body)
        if not isinstance(corrected, self.models.GameRead) or corrected.result != "1-0":
            raise CheckFailed(f"the correction answered {corrected!r}")

    def delete(self, game: Any) -> None:
        self.call("games.destroy", httpx.codes.NO_CONTENT, id=game.id)
        self.call("games.retrieve", httpx.codes.NOT_FOUND, id=game.id)

    def calculate(self) -> None:
        m = self.models
        body = m.OneGameCalculatorRequest(rating=1800, k=20, opponent=2000)
        one = self.call("calculator.create", httpx.codes.OK, via=self.anonymous, body=body)
        if one.outcomes.win.change != 15:
            raise CheckFailed(f"a win against 2000 at 1800, K 20, is {one.outcomes.win.change}")
        games = [
            m.CalculatorGameRequest(opponent=1700, score=m.ScoreEnum("1")),
            m.CalculatorGameRequest(opponent=1590, score=m.ScoreEnum("½")),
        ]
        body = m.EventCalculatorRequest(rating=1650, k=40, games=games)
        event = self.call("calculator.create", httpx.codes.OK, via=self.anonymous, body=body)
        if len(event.event.lines) != len(games):
            raise CheckFailed(f"an event of 2 games has {len(event.event.lines)} lines")

    def page_through_games(self) -> None:
        seen: list[int] = []
        page, count = 1, None
        while page:
            found = self.call("games.list", httpx.codes.OK, page=page)
            count = found.count
            seen += [game.id for game in found.results]
            page = page + 1 if found.next_ else 0
        if len(seen) != count or len(set(seen)) != count or count <= 50:
            raise CheckFailed(f"{len(seen)} games read in pages, {count} counted")


if __name__ == "__main__":
    sys.exit(main())
