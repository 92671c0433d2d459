#!/usr/bin/env bash
# start-local-sge.sh - start a throw-away Grid Engine on this one machine, for jubex's Grid
# Engine tests (tests/conftest.py starts it through this script).
#
# Usage:  start-local-sge.sh [BASE_DIR]
#         out=$(start-local-sge.sh [BASE_DIR]) && eval "$out"   # sets SGE_ROOT, PATH, ...
#
# Debian's gridengine 8.1.9 packages are unpacked under BASE_DIR, not installed: their
# qsub, qstat and qdel would take the place of Slurm's PBS wrappers (slurm-wlm-torque),
# which the PBS tests use. Outside BASE_DIR only /usr/lib/gridengine is made, a link to the
# unpacked binaries, where they look for their spooling library whatever SGE_ROOT says.
#
# BASE_DIR (default: $JUBEX_SGE_DIR, else /tmp/jubex-sge) receives everything:
#   debs/ (the packages), root/ (unpacked), sge/default/common (the cell: bootstrap,
#   act_qmaster, host_aliases), spool/ (qmaster, execd, berkeleydb), env.sh (the lines
#   printed on stdout).
#
# What it does (idempotent: running it again while the cluster is up only re-checks it):
#   1. installs the libraries the binaries need (apt-get, --no-install-recommends) and
#      downloads and unpacks the four gridengine packages once;
#   2. initialises the cell as the packages' postinst would (spool, global configuration,
#      complexes, usersets), with jobs allowed for every user (root included: min_uid 0)
#      and this host's names for 127.0.0.1 as aliases of one host name;
#   3. starts sge_qmaster and sge_execd on private ports, adds a queue all.q of
#      JUBEX_SGE_SLOTS slots on this host, schedules every second, and defines a boolean
#      EXCL complex 'exclusive' on the host (what sites define for whole-host jobs);
#   4. waits until the queue takes jobs, then prints the environment on stdout.
# Progress messages go to stderr, so stdout is safe to eval.
#
# Tunables (environment), with defaults:
#   JUBEX_SGE_SLOTS=4               slots of the queue
#   JUBEX_SGE_QMASTER_PORT=16444    sge_qmaster port (execd uses the next one)
#   JUBEX_SGE_TIMEOUT=60            seconds to wait for each daemon and for the queue
#   JUBEX_SGE_NO_INSTALL=0          1: never call apt-get (fail if something is missing)
#
# Stop with ci/stop-local-sge.sh [BASE_DIR] (same directory).

set -euo pipefail

log() { printf '[start-local-sge] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

BASE=$(realpath -m -- "${1:-${JUBEX_SGE_DIR:-/tmp/jubex-sge}}")
SLOTS=${JUBEX_SGE_SLOTS:-4}
QPORT=${JUBEX_SGE_QMASTER_PORT:-16444}
EPORT=$((QPORT + 1))
TIMEOUT=${JUBEX_SGE_TIMEOUT:-60}
NO_INSTALL=${JUBEX_SGE_NO_INSTALL:-0}
ROOT=$BASE/root
BIN=$ROOT/usr/lib/gridengine
HOST=$(hostname)
PACKAGES=(gridengine-common gridengine-client gridengine-master gridengine-exec)
LIBRARIES=(libjemalloc2 libmunge2 libssl3 libtirpc3 libhwloc15 libdb5.3 libpam0g tcsh procps)

export SGE_ROOT=$BASE/sge SGE_CELL=default
export SGE_QMASTER_PORT=$QPORT SGE_EXECD_PORT=$EPORT
export LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$BIN:$PATH
COMMON=$SGE_ROOT/$SGE_CELL/common

environment() {
    cat <<EOF
export SGE_ROOT=$SGE_ROOT
export SGE_CELL=$SGE_CELL
export SGE_QMASTER_PORT=$QPORT
export SGE_EXECD_PORT=$EPORT
export JUBEX_SGE_BIN=$BIN
EOF
}

until_true() {  # until_true WHAT COMMAND...: wait up to TIMEOUT seconds for COMMAND to succeed
    local what=$1; shift
    for _ in $(seq $((TIMEOUT * 5))); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    die "timed out waiting for $what"
}

queue_up() {  # the queue instance exists and is in no error, disabled or unknown state
    local line
    line=$(qstat -f -q all.q 2>/dev/null | grep "^all.q@") || return 1
    [[ $(awk '{print $6}' <<<"$line") == "" ]]
}

exclusive_complex() {  # a site's whole-host request: a boolean EXCL complex on the host
    local dir=$BASE/conf
    mkdir -p "$dir"
    if ! qconf -sc 2>/dev/null | grep -q '^exclusive '; then
        qconf -sc >"$dir/complexes" 2>/dev/null || return 1
        echo "exclusive excl BOOL EXCL YES YES 0 1000" >>"$dir/complexes"
        qconf -Mc "$dir/complexes" >/dev/null 2>&1 || return 1
    fi
    qconf -se "$HOST" 2>/dev/null | grep -q 'exclusive=TRUE' ||
        qconf -mattr exechost complex_values exclusive=true "$HOST" >/dev/null 2>&1
}

if [[ -x $BIN/qstat ]] && queue_up; then
    qconf -rattr queue load_thresholds NONE all.q >/dev/null 2>&1 || true
    exclusive_complex || log "could not define the complex 'exclusive'"
    log "Grid Engine already up in $BASE"
    environment | tee "$BASE/env.sh"
    exit 0
fi

install() {
    local missing=()
    for lib in "${LIBRARIES[@]}"; do
        dpkg -s "$lib" >/dev/null 2>&1 || missing+=("$lib")
    done
    if ((${#missing[@]})); then
        [[ $NO_INSTALL == 1 ]] && die "missing packages: ${missing[*]}"
        log "installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null
    fi
    if [[ ! -x $BIN/sge_qmaster ]]; then
        [[ $NO_INSTALL == 1 ]] && die "no unpacked gridengine in $ROOT"
        log "downloading and unpacking ${PACKAGES[*]}"
        mkdir -p "$BASE/debs" "$ROOT"
        (cd "$BASE/debs" && apt-get download -qq "${PACKAGES[@]}" >/dev/null 2>&1) \
            || { apt-get update -qq && (cd "$BASE/debs" && apt-get download -qq "${PACKAGES[@]}"); }
        for deb in "$BASE"/debs/*.deb; do dpkg-deb -x "$deb" "$ROOT"; done
    fi
}

aliases() {  # this host's name first, then every other name /etc/hosts gives 127.0.0.1
    local names
    names=$(awk '$1 == "127.0.0.1" { for (i = 2; i <= NF; i++) print $i }' /etc/hosts \
        | grep -vx "$HOST" | sort -u | tr '\n' ' ')
    echo "$HOST localhost $names"
}

link_libraries() {
    # the binaries load their spooling library from /usr/lib/gridengine, whatever
    # SGE_ROOT says: that path leads to the unpacked one (unless a Grid Engine is installed)
    local system=/usr/lib/gridengine
    if [[ -L $system && $(readlink "$system") == "$BIN" ]]; then return 0; fi
    [[ -e $system ]] && { [[ -e $system/libspoolb.so ]] || die "$system exists without libspoolb.so"; return 0; }
    ln -s "$BIN" "$system"
}

initialise() {
    [[ -f $COMMON/bootstrap ]] && return 0
    log "initialising the cell in $SGE_ROOT"
    local spool=$BASE/spool
    mkdir -p "$COMMON" "$spool/qmaster/job_scripts" "$spool/spooldb" "$spool/execd"
    cat >"$COMMON/bootstrap" <<EOF
admin_user              none
default_domain          none
ignore_fqdn             true
spooling_method         berkeleydb
spooling_lib            libspoolb
spooling_params         $spool/spooldb
binary_path             $BIN
qmaster_spool_dir       $spool/qmaster
security_mode           none
listener_threads        2
worker_threads          2
scheduler_threads       1
EOF
    echo "$HOST" >"$COMMON/act_qmaster"
    aliases >"$COMMON/host_aliases"
    local shared=$ROOT/usr/share/gridengine
    sed -e "s|^execd_spool_dir .*|execd_spool_dir              $spool/execd|" \
        -e 's|^min_uid .*|min_uid                      0|' \
        -e 's|^min_gid .*|min_gid                      0|' \
        -e "s|/usr/lib/gridengine|$BIN|g" \
        "$shared/default-configuration" >"$BASE/global-configuration"
    spoolinit berkeleydb libspoolb "$spool/spooldb" init >/dev/null
    spooldefaults configuration "$BASE/global-configuration" >/dev/null
    spooldefaults complexes "$shared/util/resources/centry" >/dev/null
    spooldefaults usersets "$shared/util/resources/usersets" >/dev/null
    spooldefaults managers root >/dev/null
}

configure() {  # idempotent; fails (to be tried again) while the qmaster is still starting
    qconf -as "$HOST" >/dev/null 2>&1 || true
    local dir=$BASE/conf
    mkdir -p "$dir"
    qconf -ssconf >"$dir/scheduler.now" 2>/dev/null || return 1
    sed -e 's/^schedule_interval .*/schedule_interval                 0:0:1/' \
        -e 's/^flush_submit_sec .*/flush_submit_sec                  1/' \
        -e 's/^flush_finish_sec .*/flush_finish_sec                  1/' \
        "$dir/scheduler.now" >"$dir/scheduler"
    qconf -Msconf "$dir/scheduler" >/dev/null 2>&1 || return 1
    if ! qconf -sq all.q >/dev/null 2>&1; then
        qconf -sq >"$dir/template" 2>/dev/null || return 1
        sed -e "s/^qname .*/qname                 all.q/" \
            -e "s/^hostlist .*/hostlist              $HOST/" \
            -e "s/^slots .*/slots                 $SLOTS/" \
            -e "s|^shell .*|shell                 /bin/sh|" \
            -e "s|^pe_list .*|pe_list               NONE|" "$dir/template" >"$dir/all.q"
        qconf -Aq "$dir/all.q" >/dev/null 2>&1 || return 1
    fi
    # no load threshold: on a busy 2-core machine the default (np_load_avg 1.75) puts the
    # queue in alarm, and it takes no job until the load has fallen
    qconf -rattr queue load_thresholds NONE all.q >/dev/null 2>&1 || return 1
    qmod -c "all.q" >/dev/null 2>&1 || true
}

install
link_libraries
initialise
mkdir -p "$BASE/log"
if ! qping -info "$HOST" "$QPORT" qmaster 1 >/dev/null 2>&1; then
    log "starting sge_qmaster on port $QPORT"
    sge_qmaster
    until_true "sge_qmaster" qconf -sh
fi
until_true "sge_qmaster to take the configuration" configure
if ! qping -info "$HOST" "$EPORT" execd 1 >/dev/null 2>&1; then
    log "starting sge_execd on port $EPORT"
    sge_execd
    until_true "sge_execd" qping -info "$HOST" "$EPORT" execd 1
fi
until_true "queue all.q to take jobs" queue_up
until_true "the complex 'exclusive'" exclusive_complex
log "Grid Engine up: queue all.q, $SLOTS slots on $HOST"
environment | tee "$BASE/env.sh"
