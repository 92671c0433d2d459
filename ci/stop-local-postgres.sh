#!/usr/bin/env bash
# stop-local-postgres.sh - stop the PostgreSQL server that ci/start-local-postgres.sh started.
#
# Usage: stop-local-postgres.sh [--purge] [BASE_DIR]
#   BASE_DIR defaults to $JUBEX_PG_DIR, else /tmp/jubex-postgres (same rule as the start script).
#   --purge  also delete BASE_DIR (the cluster and its data).

set -uo pipefail

PURGE=0
if [[ ${1:-} == --purge ]]; then PURGE=1; shift; fi
BASE=$(realpath -m -- "${1:-${JUBEX_PG_DIR:-/tmp/jubex-postgres}}")
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [[ -n $BIN && -f $BASE/data/postmaster.pid ]]; then
    if [[ $(id -u) == 0 ]]; then
        runuser -u postgres -- "$BIN/pg_ctl" -D "$BASE/data" -m fast -w stop >/dev/null 2>&1
    else
        "$BIN/pg_ctl" -D "$BASE/data" -m fast -w stop >/dev/null 2>&1
    fi
fi
if [[ $PURGE == 1 ]]; then rm -rf -- "$BASE"; fi
exit 0
