#!/usr/bin/env bash
# A real streaming replica of the local PostgreSQL, for the replica tests and bench runs.
#
#   bash scripts/replica.sh start    # a hot standby of 127.0.0.1:5432 on 127.0.0.1:5433
#   bash scripts/replica.sh stop     # stop it (its directory is removed)
#   bash scripts/replica.sh status
#
# REPLICA_PORT (default 5433), REPLICA_DIR (default /var/tmp/ladder-replica-$REPLICA_PORT),
# PRIMARY_PORT (default 5432). The replica is a fresh pg_basebackup of the primary (-R: a
# standby.signal and the primary_conninfo that streams from it), run by the postgres OS user.
# What the primary needs is checked, and added only if missing: max_wal_senders above 0, a
# wal_level of replica or logical (both the default), and a pg_hba line that lets the postgres
# user connect for replication from 127.0.0.1, followed by a reload (never a restart: the
# server is shared). No replication slot is made: a forgotten slot would keep WAL on the
# primary for ever; a replica that falls too far behind is made afresh with start.
set -euo pipefail

PORT=${REPLICA_PORT:-5433}
PRIMARY_PORT=${PRIMARY_PORT:-5432}
DIR=${REPLICA_DIR:-/var/tmp/ladder-replica-$PORT}
HOST=127.0.0.1
BIN=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
[[ -x "$BIN/pg_ctl" ]] || BIN=/usr/lib/postgresql/15/bin

as_postgres() {
  if [[ "$(id -un)" == postgres ]]; then "$@"; else runuser -u postgres -- "$@"; fi
}
primary() { psql -h "$HOST" -p "$PRIMARY_PORT" -U postgres -v ON_ERROR_STOP=1 -qAtc "$1"; }

prepare_primary() {
  local level senders hba
  level=$(primary "SHOW wal_level")
  senders=$(primary "SHOW max_wal_senders")
  if [[ "$level" == minimal || "$senders" == 0 ]]; then
    echo "FAIL: the primary has wal_level=$level, max_wal_senders=$senders; streaming needs" \
      "wal_level=replica and max_wal_senders > 0, which only a restart sets." >&2
    exit 1
  fi
  if [[ "$(primary "SELECT count(*) FROM pg_hba_file_rules WHERE 'replication' = ANY(database)
      AND ('postgres' = ANY(user_name) OR 'all' = ANY(user_name))
      AND (type = 'local' OR address = '$HOST')")" == 0 ]]; then
    hba=$(primary "SHOW hba_file")
    echo "adding 'host replication postgres $HOST/32 trust' to $hba and reloading"
    printf '\n# Added by ladder scripts/replica.sh: a local streaming replica.\n%s\n' \
      "host replication postgres $HOST/32 trust" >>"$hba"
    primary "SELECT pg_reload_conf()" >/dev/null
    sleep 1
  fi
}

running() { [[ -f "$DIR/postmaster.pid" ]] && as_postgres "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; }

start() {
  if running; then
    echo "replica already running on $HOST:$PORT ($DIR)"
    return
  fi
  prepare_primary
  rm -rf "$DIR"
  install -d -o postgres -g postgres -m 700 "$DIR"
  as_postgres pg_basebackup -h "$HOST" -p "$PRIMARY_PORT" -U postgres -D "$DIR" -R -X stream \
    -c fast
  # Debian keeps the configuration outside the data directory: the replica gets its own.
  # A hot standby needs these at least as high as on its primary.
  local name value
  {
    echo "# ladder scripts/replica.sh: a hot standby of $HOST:$PRIMARY_PORT"
    echo "port = $PORT"
    echo "listen_addresses = '$HOST'"
    echo "unix_socket_directories = '$DIR'"
    echo "hot_standby = on"
    echo "max_standby_streaming_delay = 5s"
    for name in max_connections max_worker_processes max_wal_senders \
        max_prepared_transactions max_locks_per_transaction; do
      value=$(primary "SHOW $name")
      echo "$name = $value"
    done
  } | as_postgres tee "$DIR/postgresql.conf" >/dev/null
  printf 'local all all trust\nhost all all %s/32 trust\n' "$HOST" \
    | as_postgres tee "$DIR/pg_hba.conf" >/dev/null
  as_postgres touch "$DIR/pg_ident.conf"
  as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 120 start >/dev/null
  local tries=0
  until [[ "$(psql -h "$HOST" -p "$PORT" -U postgres -qAtc "SELECT pg_is_in_recovery()" \
      2>/dev/null)" == t ]]; do
    tries=$((tries + 1))
    if ((tries > 240)); then
      echo "FAIL: the replica on $HOST:$PORT does not answer as a standby; see $DIR/server.log" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "replica streaming from $HOST:$PRIMARY_PORT on $HOST:$PORT ($DIR)"
}

stop() {
  if running; then
    as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >/dev/null
    echo "replica on $HOST:$PORT stopped"
  fi
  rm -rf "$DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status)
    if running; then echo "running on $HOST:$PORT ($DIR)"; else echo "not running"; exit 3; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
