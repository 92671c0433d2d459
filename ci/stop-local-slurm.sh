#!/usr/bin/env bash
# stop-local-slurm.sh - stop the cluster that ci/start-local-slurm.sh started.
#
# Usage: stop-local-slurm.sh [--purge] [BASE_DIR]
#   BASE_DIR defaults to $JUBEX_SLURM_DIR, else /tmp/jubex-slurm (same rule as the start script).
#   --purge  also delete BASE_DIR afterwards.
#
# Only processes recorded in BASE_DIR's pid files are signalled (slurmd per node, slurmctld,
# slurmdbd, mariadbd, munged; each pid is checked against its command line first), plus
# slurmstepd processes whose working directory or open files lie under BASE_DIR (job steps
# of this cluster that outlived the cancel below, e.g. after a daemon crashed; the job
# processes die with them). Nothing is found by name alone.

set -uo pipefail

T0=${EPOCHREALTIME:-0}
log() { printf '[stop-local-slurm %6.2fs] %s\n' "$(awk -v a="$T0" -v b="${EPOCHREALTIME:-0}" 'BEGIN { print b - a }')" "$*" >&2; }

PURGE=0
if [[ ${1:-} == --purge ]]; then PURGE=1; shift; fi
BASE=${1:-${JUBEX_SLURM_DIR:-/tmp/jubex-slurm}}
BASE=$(realpath -m -- "$BASE")
CONF=$BASE/etc/slurm.conf
RUN=$BASE/run
export SLURM_CONF=$CONF PATH=$PATH:/usr/sbin:/sbin

# pid_of PIDFILE WORD : print the pid if it runs and its command line contains WORD
pid_of() {
    local f=$1 word=$2 pid
    [[ -s $f ]] || return 1
    pid=$(<"$f"); pid=${pid//[[:space:]]/}
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "$word" || return 1
    echo "$pid"
}
# running PID : true while PID exists and is not a zombie (an exited daemon whose parent,
# often PID 1 in a container, has not reaped it yet still answers kill -0)
running() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [[ -n $st && $st != Z && $st != X ]]
}
# stop_pids NAME PID... : SIGTERM all, wait up to 15 s, then SIGKILL the rest
stop_pids() {
    local name=$1 pid i left; shift
    [[ $# -gt 0 ]] || return 0
    log "stopping $name (pid $*)"
    kill -TERM "$@" 2>/dev/null
    for ((i = 0; i < 75; i++)); do
        left=()
        for pid in "$@"; do running "$pid" && left+=("$pid"); done
        [[ ${#left[@]} -eq 0 ]] && return 0
        sleep 0.2
    done
    log "$name (pid ${left[*]}) ignored SIGTERM: SIGKILL"
    kill -KILL "${left[@]}" 2>/dev/null || true
}

if [[ ! -d $BASE ]]; then
    log "nothing to stop: $BASE does not exist"
    exit 0
fi

# 1. cancel this cluster's jobs while slurmctld still answers, so that job steps end cleanly
if pid_of "$RUN/slurmctld.pid" slurmctld >/dev/null && [[ -f $CONF ]]; then
    jobs=$(squeue -h -o '%F' 2>/dev/null | sort -u | tr '\n' ' ')
    if [[ -n ${jobs// /} ]]; then
        log "cancelling jobs: $jobs"
        # shellcheck disable=SC2086
        scancel $jobs 2>/dev/null || true
        for ((i = 0; i < 75; i++)); do
            [[ -z $(squeue -h -o '%i' 2>/dev/null) ]] && break
            sleep 0.2
        done
    fi
fi

# 2. daemons, from the pid files: all slurmd at once, then slurmctld, slurmdbd, mariadbd, munged
slurmds=()
for f in "$RUN"/slurmd-*.pid; do
    [[ -e $f ]] || continue
    if pid=$(pid_of "$f" slurmd); then slurmds+=("$pid"); fi
done
stop_pids "slurmd x${#slurmds[@]}" "${slurmds[@]}"
if pid=$(pid_of "$RUN/slurmctld.pid" slurmctld); then stop_pids slurmctld "$pid"; fi
if pid=$(pid_of "$RUN/slurmdbd.pid" slurmdbd); then stop_pids slurmdbd "$pid"; fi
if pid=$(pid_of "$RUN/mariadb.pid" "$BASE/mysql"); then stop_pids mariadbd "$pid"; fi
if pid=$(pid_of "$BASE/munge/munged.pid" "$BASE/munge/munge.socket"); then stop_pids munged "$pid"; fi

# 3. slurmstepd processes of this cluster (their cwd is BASE/log and they hold the slurmd
#    log file open) - left behind only if the daemons died before the jobs ended. They
#    ignore SIGTERM, and their job processes would outlive them: SIGKILL the whole tree.
steps=()
for p in /proc/[0-9]*; do
    [[ $(cat "$p/comm" 2>/dev/null) == slurmstepd ]] || continue
    mine=0
    [[ $(readlink "$p/cwd" 2>/dev/null) == "$BASE/"* ]] && mine=1
    for fd in "$p"/fd/*; do
        [[ $mine -eq 1 ]] && break
        [[ $(readlink "$fd" 2>/dev/null) == "$BASE/"* ]] && mine=1
    done
    [[ $mine -eq 1 ]] && steps+=("${p#/proc/}")
done
if [[ ${#steps[@]} -gt 0 ]]; then
    # descendants of the slurmstepd processes, from the ppid field of /proc/*/stat
    declare -A kids=()
    for st in /proc/[0-9]*/stat; do
        { read -r line <"$st"; } 2>/dev/null || continue
        pid=${line%% *}; rest=${line##*) }; rest=${rest#* }; ppid=${rest%% *}
        kids[$ppid]+=" $pid"
    done
    tree=() todo=("${steps[@]}")
    while [[ ${#todo[@]} -gt 0 ]]; do
        pid=${todo[0]}; todo=("${todo[@]:1}")
        tree+=("$pid")
        # shellcheck disable=SC2206
        [[ -n ${kids[$pid]:-} ]] && todo+=(${kids[$pid]})
    done
    log "killing leftover job steps of this cluster: slurmstepd ${steps[*]} and their processes (${#tree[@]} in all)"
    kill -KILL "${tree[@]}" 2>/dev/null || true
fi

rm -f "$RUN"/slurmd-*.pid "$RUN/slurmctld.pid" "$RUN/slurmdbd.pid" "$RUN/mariadb.pid" "$BASE/munge/munged.pid"
if [[ $PURGE -eq 1 ]]; then
    log "removing $BASE"
    rm -rf -- "$BASE"
fi
log "stopped"
