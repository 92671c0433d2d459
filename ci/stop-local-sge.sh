#!/usr/bin/env bash
# stop-local-sge.sh - stop the Grid Engine that ci/start-local-sge.sh started.
#
# Usage: stop-local-sge.sh [--purge] [BASE_DIR]
#   BASE_DIR defaults to $JUBEX_SGE_DIR, else /tmp/jubex-sge (same rule as the start script).
#   --purge  also delete BASE_DIR and the /usr/lib/gridengine link the start script made.
#
# The daemons are asked to stop by qconf (-ke: the execution daemon, -km: the master); the
# jobs they still run end with them.

set -uo pipefail

PURGE=0
if [[ ${1:-} == --purge ]]; then PURGE=1; shift; fi
BASE=$(realpath -m -- "${1:-${JUBEX_SGE_DIR:-/tmp/jubex-sge}}")
BIN=$BASE/root/usr/lib/gridengine
if [[ -f $BASE/env.sh ]]; then
    # shellcheck disable=SC1091
    source "$BASE/env.sh"
    "$BIN/qconf" -ke all >/dev/null 2>&1
    sleep 1
    "$BIN/qconf" -km >/dev/null 2>&1
    # gone only once its port stops answering (a start meanwhile would find the old one)
    for _ in $(seq 150); do
        "$BIN/qping" -info "$(hostname)" "$SGE_QMASTER_PORT" qmaster 1 >/dev/null 2>&1 || break
        sleep 0.2
    done
fi
if [[ $PURGE == 1 ]]; then
    [[ -L /usr/lib/gridengine && $(readlink /usr/lib/gridengine) == "$BIN" ]] && rm /usr/lib/gridengine
    rm -rf -- "$BASE"
fi
exit 0
