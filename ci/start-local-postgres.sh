#!/usr/bin/env bash
# start-local-postgres.sh - start a throw-away PostgreSQL server on this one machine, for the
# tests of jubex's results database (tests/conftest.py starts it through this script) and
# bench/bench_resultsdb.py.
#
# Usage:  start-local-postgres.sh [BASE_DIR]
#         out=$(start-local-postgres.sh [BASE_DIR]) && eval "$out"   # sets JUBEX_TEST_POSTGRES
#
# BASE_DIR (default: $JUBEX_PG_DIR, else /tmp/jubex-postgres) receives everything: data/
# (the cluster), socket/, log, env.sh (the line printed on stdout).
#
# What it does (idempotent: running it again while the server is up only re-checks it):
#   1. installs Debian's postgresql if initdb is missing (apt-get, --no-install-recommends;
#      the package's own cluster is neither used nor touched);
#   2. makes a private cluster in BASE_DIR/data owned by an unprivileged user (PostgreSQL
#      refuses to run as root: as root the package's user 'postgres' runs it), its superuser
#      'jubex', trusted on loopback and the private socket only;
#   3. starts it listening on 127.0.0.1:PORT (no other address), creates the database 'jubex';
#   4. prints `export JUBEX_TEST_POSTGRES=postgresql+psycopg://jubex@127.0.0.1:PORT/jubex`.
# Progress messages go to stderr, so stdout is safe to eval.
#
# Tunables (environment), with defaults:
#   JUBEX_PG_PORT=15432         the port on 127.0.0.1
#   JUBEX_PG_TIMEOUT=60         seconds to wait for the server
#   JUBEX_PG_NO_INSTALL=0       1: never call apt-get (fail if PostgreSQL is missing)
#
# Stop with ci/stop-local-postgres.sh [--purge] [BASE_DIR].

set -euo pipefail

log() { printf '[start-local-postgres] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

BASE=$(realpath -m -- "${1:-${JUBEX_PG_DIR:-/tmp/jubex-postgres}}")
PORT=${JUBEX_PG_PORT:-15432}
TIMEOUT=${JUBEX_PG_TIMEOUT:-60}
NO_INSTALL=${JUBEX_PG_NO_INSTALL:-0}
[[ $PORT =~ ^[0-9]+$ ]] || die "JUBEX_PG_PORT must be a port number"

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

BIN=$(bindir)
if [[ -z $BIN || ! -x $BIN/initdb ]]; then
    [[ $NO_INSTALL == 1 ]] && die "PostgreSQL is not installed (JUBEX_PG_NO_INSTALL=1)"
    log "installing postgresql"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql \
        >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends postgresql >/dev/null; }
    BIN=$(bindir)
    [[ -n $BIN && -x $BIN/initdb ]] || die "no initdb after installing postgresql"
fi

# the server's user: this one, or as root the package's unprivileged 'postgres'
as_owner() {
    if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

URL="postgresql+psycopg://jubex@127.0.0.1:$PORT/jubex"
environment() { echo "export JUBEX_TEST_POSTGRES=$URL"; }

up() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -d jubex -U jubex; }

if [[ -f $BASE/data/PG_VERSION ]] && up && "$BIN/psql" -qAt -h 127.0.0.1 -p "$PORT" -U jubex \
    -d jubex -c 'SELECT 1' >/dev/null 2>&1; then
    log "PostgreSQL already up in $BASE"
    environment | tee "$BASE/env.sh"
    exit 0
fi

mkdir -p "$BASE/socket"
if [[ $(id -u) == 0 ]]; then chown postgres: "$BASE" "$BASE/socket"; fi
if [[ ! -f $BASE/data/PG_VERSION ]]; then
    log "initialising a cluster in $BASE/data"
    as_owner "$BIN/initdb" -D "$BASE/data" -U jubex --auth=trust -E UTF8 --locale=C.UTF-8 \
        >"$BASE/initdb.log" 2>&1 || die "initdb failed: $(tail -n 5 "$BASE/initdb.log")"
    # loopback and the private socket only; every other address is refused
    as_owner tee "$BASE/data/pg_hba.conf" >/dev/null <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
fi
log "starting on 127.0.0.1:$PORT"
as_owner "$BIN/pg_ctl" -D "$BASE/data" -l "$BASE/log" -w -t "$TIMEOUT" start \
    -o "-p $PORT -c listen_addresses=127.0.0.1 -k $BASE/socket -c max_connections=200 \
-c fsync=on -c synchronous_commit=on" >/dev/null || die "the server did not start: $(tail -n 5 "$BASE/log")"
for _ in $(seq "$((TIMEOUT * 5))"); do up && break; sleep 0.2; done
up || die "the server does not answer on 127.0.0.1:$PORT"
if ! "$BIN/psql" -qAt -h 127.0.0.1 -p "$PORT" -U jubex -d postgres \
    -c "SELECT 1 FROM pg_database WHERE datname = 'jubex'" | grep -q 1; then
    "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U jubex jubex
fi
environment | tee "$BASE/env.sh"
