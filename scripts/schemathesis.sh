#!/usr/bin/env bash
# Fuzz the REST API v1 against its own OpenAPI schema with Schemathesis.
#
# Migrates a throwaway database (DATABASE_URL, default a temporary SQLite file), loads a small
# club, serves it with runserver (DEBUG off) and runs Schemathesis as an authorized user, so that
# writes reach the services too, with what exists in the club (ids, events, open dates, a
# tournament file) as its test data (scripts/schemathesis_data.py). Fails on any server error or
# response that breaks the schema.
#
#   scripts/schemathesis.sh                 # SQLite in a temporary folder
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/ladder_st scripts/schemathesis.sh
#
# Knobs: PORT (default 8765), MAX_TIME for the whole run in seconds (default 90), MAX_EXAMPLES
# per operation (default 20), SCHEMATHESIS_ARGS (extra flags, e.g. "--seed 1").
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
SCHEMATHESIS=${SCHEMATHESIS:-$ROOT/.venv/bin/schemathesis}
PORT=${PORT:-8765}
MAX_EXAMPLES=${MAX_EXAMPLES:-20}
MAX_TIME=${MAX_TIME:-90}

workdir=$(mktemp -d "${TMPDIR:-/tmp}/ladder-schemathesis.XXXXXX")
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT

export DATABASE_URL=${DATABASE_URL:-sqlite:///$workdir/ladder.sqlite3}
export DJANGO_DEBUG=0 DJANGO_SECRET_KEY=ci DJANGO_ALLOWED_HOSTS=127.0.0.1
# The fuzzer sends thousands of requests: lift the anonymous throttle for this run.
export LADDER_ANON_THROTTLE=1000000/hour

echo "== migrating ${DATABASE_URL%%://*} database"
"$PY" manage.py migrate --noinput -v 0

echo "== loading a small club"
"$PY" manage.py shell -v 0 -c '
from datetime import date
from django.contrib.auth import get_user_model
from ladder.writes import actions
from ladder.records import BaseCorrection, Game, Player, RatingPeriod, Tournament
from ladder.writes.validation import GameEntry

user, _ = get_user_model().objects.get_or_create(
    username="schemathesis", defaults={"is_staff": True, "is_superuser": True}
)
user.set_unusable_password()
user.save()
if not Player.objects.exists():
    names = ["Anna Alekhina", "Boris Botvin", "Clara Carls", "Dmitri Dvoretsky", "Eve Euwe"]
    ratings = [2210, 1985, 1840, 1720, None]
    players = [
        Player.objects.create(name=name, fide_id=4100000 + i, entry_rating=rating,
                              entry_rated_games=40 if rating else 0, birth_year=1990 + 4 * i)
        for i, (name, rating) in enumerate(zip(names, ratings))
    ]
    results = ["1-0", "1/2-1/2", "0-1", "1-0", "+/-", "1/2-1/2"]
    # The club the schema'"'"'s examples describe: periods 2026-01 to 2026-03 (ids 1 to 3; the
    # first two closed), players 1 to 5, the tournament "Club Cup" in March (id 1).
    periods = [RatingPeriod.objects.for_date(date(2026, month, 1)) for month in (1, 2, 3)]
    actions.save_tournament(tournament=Tournament(
        name="Club Cup", start=periods[2].start, end=periods[2].end, rated_in=periods[2],
    ), user=user)
    events = {1: "Winter Cup", 2: "February Open", 3: "Club Cup"}
    for month, event in events.items():
        for i, result in enumerate(results):
            actions.enter_games(games=[GameEntry(
                date=date(2026, month, 3 + i), white=players[i % 5],
                black=players[(i + 1 + month) % 5], result=result, event=event,
                round=str(i + 1),
            )], user=user)
    # Games for the fuzzer to change ("Open games") and to delete ("Spare games"): the Club
    # Cup'"'"'s stay as they are, for the requests that name the event (its TRF export).
    for n in range(12):
        actions.enter_games(games=[GameEntry(
            date=date(2026, 3, 10 + n), white=players[n % 5], black=players[(n + 2) % 5],
            result=results[n % len(results)], event="Open games" if n < 6 else "Spare games",
        )], user=user)
    for label in ("2026-01", "2026-02"):  # the examples read the February list (period 2)
        actions.close_period(period=RatingPeriod.objects.get(label=label), user=user)
    for player in players[2:4]:
        actions.save_base_correction(correction=BaseCorrection(
            player=player, period=RatingPeriod.objects.get(label="2026-03"),
            rating=player.entry_rating + 5, reason="FIDE starts from another rating.",
        ), user=user)
    # Corrections on the rapid list for the fuzzer to delete (scripts/schemathesis_data.py):
    # the standard ones stay for every other request.
    for i, player in enumerate(players):
        actions.save_base_correction(correction=BaseCorrection(
            player=player, period=RatingPeriod.objects.get(label="2026-03"),
            rating_list="rapid", rating=1600 + 10 * i, reason="Rated from another list.",
        ), user=user)
print(Player.objects.count(), "players,", Game.objects.count(), "games")
'
token=$("$PY" manage.py issue_token schemathesis)
# What exists in the club (ids, events, open dates, a tournament file): Schemathesis test data.
config="$workdir/schemathesis.toml"
"$PY" scripts/schemathesis_data.py "$config"

echo "== starting the server on 127.0.0.1:$PORT"
"$PY" manage.py runserver "127.0.0.1:$PORT" --noreload >"$workdir/server.log" 2>&1 &
server_pid=$!

echo "== running Schemathesis"
# One worker: with several, Schemathesis 4.x's coverage phase can fail with an internal
# Hypothesis error ("AST constructor recursion depth mismatch"), and SQLite serializes writes.
status=0
# Run from the temporary folder: Schemathesis keeps a .schemathesis/ cache in its working directory.
# The hooks read the CSV answers (scripts/schemathesis_hooks.py).
(cd "$workdir" && PYTHONPATH="$ROOT/scripts" SCHEMATHESIS_HOOKS=schemathesis_hooks \
    "$SCHEMATHESIS" --config-file "$config" run \
    "http://127.0.0.1:$PORT/api/v1/schema/" \
    --wait-for-schema 60 \
    --checks not_a_server_error,response_schema_conformance \
    --max-examples "$MAX_EXAMPLES" \
    --max-time "$MAX_TIME" \
    --workers 1 \
    --header "Authorization: Token $token" \
    --generation-database none \
    --no-color \
    ${SCHEMATHESIS_ARGS:-}) || status=$?

if [[ $status -ne 0 ]]; then
    echo "== Schemathesis failed (exit $status); server errors:"
    grep -B 2 -A 80 "^Traceback" "$workdir/server.log" | head -n 400 || tail -n 60 "$workdir/server.log"
fi
exit "$status"
