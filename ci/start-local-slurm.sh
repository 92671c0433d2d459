#!/usr/bin/env bash
# start-local-slurm.sh - start a throw-away Slurm cluster on this one machine, for jubex's
# Slurm tests (tests/conftest.py starts it through this script) and bench/bench_slurm.py.
#
# Usage:  start-local-slurm.sh [BASE_DIR]
#         out=$(start-local-slurm.sh [BASE_DIR]) && eval "$out"   # sets SLURM_CONF in the caller
#         (a bare eval "$(start-local-slurm.sh)" would hide a failure: eval "" succeeds)
#
# BASE_DIR (default: $JUBEX_SLURM_DIR, else /tmp/jubex-slurm) receives everything:
#   etc/slurm.conf, munge/ (own key + socket), state/, spool/, log/, run/ (pid files),
#   env.sh (the lines printed on stdout); with accounting also mysql/ and etc/slurmdbd.conf.
#
# What it does (idempotent: running it again while the cluster is up only re-checks it):
#   1. installs Debian's slurmctld slurmd slurm-client munge if a binary is missing
#      (apt-get, --no-install-recommends, services are not auto-started);
#   2. starts a private munged (own key and socket under BASE_DIR; the system munge
#      is neither used nor touched);
#   3. writes slurm.conf: JUBEX_SLURM_NODES emulated nodes n1..nN (one slurmd per node,
#      all on 127.0.0.1 with distinct ports; Debian builds Slurm with
#      --enable-multiple-slurmd), partitions 'debug' (default) and 'batch';
#   4. starts slurmctld and the slurmd daemons directly (no systemd);
#   5. waits until every node is idle, then prints `export SLURM_CONF=...` on stdout.
# Progress messages go to stderr, so stdout is safe to eval.
#
# Tunables (environment), with defaults:
#   JUBEX_SLURM_NODES=4             emulated nodes n1..nN
#   JUBEX_SLURM_CPUS_PER_NODE=4     CPUs each node claims (may exceed the real cores)
#   JUBEX_SLURM_MEM_PER_NODE=       MB each node claims (default: real memory / nodes)
#   JUBEX_SLURM_CTLD_PORT=16817     slurmctld port
#   JUBEX_SLURM_SLURMD_PORT=17001   first slurmd port (node i uses PORT+i-1)
#   JUBEX_SLURM_MIN_JOB_AGE=300     seconds a finished job stays visible to squeue/scontrol
#   JUBEX_SLURM_DEPEND_PARAMS=kill_invalid_depend  DependencyParameters: a job whose dependency
#                                   can never be met is cancelled ('' keeps Slurm's default:
#                                   it stays PENDING, reason DependencyNeverSatisfied, forever)
#   JUBEX_SLURM_SCHED_PARAMS=batch_sched_delay=0  SchedulerParameters: schedule a submitted batch
#                                   job at once (Slurm waits up to 3 s by default; '' = default)
#   JUBEX_SLURM_ACCOUNTING=0        1: real accounting (sacct) - also installs slurmdbd and
#                                   mariadb-server (~30 s more) and runs a private mariadbd
#                                   (127.0.0.1:JUBEX_SLURM_MYSQL_PORT=13306) and slurmdbd
#                                   (JUBEX_SLURM_DBD_PORT=16819)
#   JUBEX_SLURM_PBS=0               1: also install slurm-wlm-torque (qsub/qstat/qdel/pbsnodes
#                                   wrappers) and load the spank_pbs plugin (PBS_JOBID,
#                                   PBS_O_WORKDIR, ... inside jobs). Conflicts with gridengine-client.
#   JUBEX_SLURM_TIMEOUT=60          seconds to wait for each daemon / for idle nodes
#   JUBEX_SLURM_NO_INSTALL=0        1: never call apt-get (fail if something is missing)
#
# Stop with ci/stop-local-slurm.sh [BASE_DIR] (same directory).

set -euo pipefail

T0=${EPOCHREALTIME:-0}
log() { printf '[start-local-slurm %6.2fs] %s\n' "$(awk -v a="$T0" -v b="${EPOCHREALTIME:-0}" 'BEGIN { print b - a }')" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

BASE=${1:-${JUBEX_SLURM_DIR:-/tmp/jubex-slurm}}
BASE=$(realpath -m -- "$BASE")
NODES=${JUBEX_SLURM_NODES:-4}
CPUS=${JUBEX_SLURM_CPUS_PER_NODE:-4}
MEM=${JUBEX_SLURM_MEM_PER_NODE:-}
CTLD_PORT=${JUBEX_SLURM_CTLD_PORT:-16817}
SLURMD_PORT=${JUBEX_SLURM_SLURMD_PORT:-17001}
DBD_PORT=${JUBEX_SLURM_DBD_PORT:-16819}
MYSQL_PORT=${JUBEX_SLURM_MYSQL_PORT:-13306}
MIN_JOB_AGE=${JUBEX_SLURM_MIN_JOB_AGE:-300}
DEPEND_PARAMS=${JUBEX_SLURM_DEPEND_PARAMS-kill_invalid_depend}
SCHED_PARAMS=${JUBEX_SLURM_SCHED_PARAMS-batch_sched_delay=0}
ACCOUNTING=${JUBEX_SLURM_ACCOUNTING:-0}
PBS=${JUBEX_SLURM_PBS:-0}
TIMEOUT=${JUBEX_SLURM_TIMEOUT:-60}

[[ $NODES =~ ^[1-9][0-9]*$ ]] || die "JUBEX_SLURM_NODES must be a positive integer"
[[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "JUBEX_SLURM_CPUS_PER_NODE must be a positive integer"

CONF=$BASE/etc/slurm.conf
DBD_CONF=$BASE/etc/slurmdbd.conf
MUNGE_DIR=$BASE/munge
SOCK=$MUNGE_DIR/munge.socket
RUN=$BASE/run
SQL_SOCK=$BASE/mysql/mysql.sock
export SLURM_CONF=$CONF
export PATH=$PATH:/usr/sbin:/sbin

if [[ $(id -u) -eq 0 ]]; then SUDO=(); else SUDO=(sudo -n); fi

# ---------------------------------------------------------------- 1. packages
install_packages() {
    local pkgs=() c
    for c in slurmctld slurmd sbatch squeue munged munge; do
        command -v "$c" >/dev/null 2>&1 || pkgs=(slurmctld slurmd slurm-client munge)
    done
    if [[ $ACCOUNTING == 1 ]]; then
        for c in slurmdbd mariadbd mariadb-install-db mariadb; do
            command -v "$c" >/dev/null 2>&1 || pkgs+=(slurmdbd mariadb-server)
        done
    fi
    if [[ $PBS == 1 ]]; then command -v qsub >/dev/null 2>&1 || pkgs+=(slurm-wlm-torque); fi
    [[ ${#pkgs[@]} -eq 0 ]] && return 0
    mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
    [[ ${JUBEX_SLURM_NO_INSTALL:-0} == 1 ]] && die "missing packages (${pkgs[*]}) and JUBEX_SLURM_NO_INSTALL=1"
    log "installing ${pkgs[*]} (apt-get) ..."
    local made_policy=0 rc=0
    # Keep the packages' maintainer scripts from starting system services.
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee /usr/sbin/policy-rc.d >/dev/null
        "${SUDO[@]}" chmod 755 /usr/sbin/policy-rc.d
        made_policy=1
    fi
    {
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
            "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                --no-install-recommends "${pkgs[@]}"
    } >&2 || rc=$?
    [[ $made_policy -eq 1 ]] && "${SUDO[@]}" rm -f /usr/sbin/policy-rc.d
    [[ $rc -eq 0 ]] || die "apt-get failed (rc=$rc)"
    log "packages installed"
}
install_packages

# ---------------------------------------------------------------- helpers
# pid_alive PIDFILE WORD : true if the pid in PIDFILE runs and its command line has WORD
pid_alive() {
    local f=$1 word=$2 pid
    [[ -s $f ]] || return 1
    pid=$(<"$f"); pid=${pid//[[:space:]]/}
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "$word"
}
wait_for() { # wait_for SECONDS CMD... : retry CMD every 0.2 s until it succeeds
    local end=$((SECONDS + $1)); shift
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < end)) || return 1
        sleep 0.2
    done
}
node_names() { local i; for ((i = 1; i <= NODES; i++)); do printf 'n%d\n' "$i"; done; }

munge_alive()  { pid_alive "$MUNGE_DIR/munged.pid" "$SOCK"; }
munge_ok()     { munge_alive && munge -n -S "$SOCK" | unmunge -S "$SOCK" >/dev/null 2>&1; }
sql_alive()    { pid_alive "$RUN/mariadb.pid" "$BASE/mysql"; }
sql_ok()       { mariadb --no-defaults -S "$SQL_SOCK" -e 'select 1' >/dev/null 2>&1; }
dbd_alive()    { pid_alive "$RUN/slurmdbd.pid" slurmdbd; }
dbd_ok()       { sacctmgr -n show cluster >/dev/null 2>&1; }
ctld_alive()   { pid_alive "$RUN/slurmctld.pid" slurmctld; }
ctld_ok()      { scontrol ping 2>/dev/null | grep -q 'is UP'; }
slurmd_alive() { pid_alive "$RUN/slurmd-$1.pid" slurmd; }

any_alive() {
    local n
    munge_alive || sql_alive || dbd_alive || ctld_alive && return 0
    for n in $(node_names); do slurmd_alive "$n" && return 0; done
    return 1
}

# ---------------------------------------------------------------- 2./3. fresh setup
if [[ -f $CONF ]] && any_alive; then
    log "daemons from an earlier start are running in $BASE: keeping its config and state"
    # Use the node count and options of the running config, not the environment's.
    NODES=$(grep -oE '^NodeName=n\[1-[0-9]+\]' "$CONF" | grep -oE '[0-9]+\]$' | tr -d ']' || true)
    [[ -n $NODES ]] || NODES=1
    if grep -q '^AccountingStorageType=accounting_storage/slurmdbd' "$CONF"; then ACCOUNTING=1; else ACCOUNTING=0; fi
else
    log "fresh setup in $BASE"
    rm -rf -- "$BASE/state" "$BASE/spool" "$BASE/log" "$RUN" "$MUNGE_DIR" "$BASE/mysql" "$DBD_CONF"
    mkdir -p "$BASE/etc" "$BASE/state" "$BASE/spool" "$BASE/log" "$RUN" "$MUNGE_DIR"
    # munged insists: socket dir traversable by all, key readable by its owner only.
    chmod 755 "$BASE" "$MUNGE_DIR"
    if command -v mungekey >/dev/null 2>&1; then
        mungekey --create --keyfile="$MUNGE_DIR/munge.key" >/dev/null
    else
        dd if=/dev/urandom of="$MUNGE_DIR/munge.key" bs=1024 count=1 status=none
    fi
    chmod 600 "$MUNGE_DIR/munge.key"

    HOST=$(hostname -s)
    ME=$(id -un)
    # slurmd -C prints e.g. "NodeName=host CPUs=2 ... RealMemory=24105"
    REALMEM=$(slurmd -C 2>/dev/null | grep -oE 'RealMemory=[0-9]+' | cut -d= -f2 || true)
    [[ -n $REALMEM ]] || REALMEM=$(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo)
    [[ -n $MEM ]] || MEM=$((REALMEM / NODES))
    ((MEM >= 100)) || MEM=100
    DEFMEM=$((MEM / CPUS)); ((DEFMEM >= 1)) || DEFMEM=1
    if ((NODES == 1)); then NODESPEC="n1"; PORTSPEC=$SLURMD_PORT
    else NODESPEC="n[1-$NODES]"; PORTSPEC="$SLURMD_PORT-$((SLURMD_PORT + NODES - 1))"; fi

    if [[ $ACCOUNTING == 1 ]]; then
        ACCT_LINES="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
# slurmdbd traffic is authenticated via the munge socket named here, not AuthInfo
AccountingStoragePass=$SOCK
JobAcctGatherType=jobacct_gather/linux"
    else
        ACCT_LINES="# no slurmdbd: sacct does not work, except sacct -c (--completion), which reads JobCompLoc
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
    fi
    if [[ $PBS == 1 ]]; then
        SPANK=$(compgen -G '/usr/lib/*/slurm-wlm/spank_pbs.so' | head -1 || true)
        [[ -n $SPANK ]] || die "spank_pbs.so not found"
        echo "required $SPANK" >"$BASE/etc/plugstack.conf"
    else
        rm -f "$BASE/etc/plugstack.conf"
    fi

    cat >"$CONF" <<EOF
# Generated by start-local-slurm.sh - a single-machine test cluster.
ClusterName=jubex
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=$ME
SlurmdUser=$ME
AuthType=auth/munge
CredType=cred/munge
# cred_expire is also how long a requeued job waits before it may start again (120 s by
# default): the tests that down a node under a job need only a short wait
AuthInfo=socket=$SOCK,cred_expire=30
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$BASE/etc/plugstack.conf
MailProg=/bin/true
# no cgroups in containers/VMs without systemd
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$DEFMEM
SchedulerType=sched/backfill
${SCHED_PARAMS:+SchedulerParameters=$SCHED_PARAMS}
${DEPEND_PARAMS:+DependencyParameters=$DEPEND_PARAMS}
# the node lines below may claim more CPUs/memory than the machine has
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=$MIN_JOB_AGE
MaxArraySize=10001
KillWait=5
InactiveLimit=0
JobCompType=jobcomp/filetxt
JobCompLoc=$BASE/log/jobcomp.txt
$ACCT_LINES
NodeName=$NODESPEC NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$PORTSPEC CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=batch Nodes=ALL Default=NO MaxTime=INFINITE State=UP
EOF

    if [[ $ACCOUNTING == 1 ]]; then
        log "initialising a private MariaDB in $BASE/mysql"
        mkdir -p "$BASE/mysql"
        mariadb-install-db --no-defaults --datadir="$BASE/mysql/data" --user="$ME" \
            --auth-root-authentication-method=socket --skip-test-db \
            >"$BASE/log/mariadb-install.log" 2>&1 || die "mariadb-install-db failed; see $BASE/log/mariadb-install.log"
        DBPASS=$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
        # slurmdbd.conf must be private to SlurmUser (it holds the database password)
        (umask 077 && cat >"$DBD_CONF" <<EOF
AuthType=auth/munge
AuthInfo=socket=$SOCK
DbdHost=$HOST
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=$ME
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$MYSQL_PORT
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
PidFile=$RUN/slurmdbd.pid
LogFile=$BASE/log/slurmdbd.log
DebugLevel=info
EOF
        )
        touch "$BASE/mysql/.needs-user"
    fi
fi

# ---------------------------------------------------------------- 4. daemons
if ! munge_ok; then
    log "starting munged"
    rm -f "$SOCK" "$SOCK.lock"
    munged --key-file="$MUNGE_DIR/munge.key" --socket="$SOCK" \
        --pid-file="$MUNGE_DIR/munged.pid" --seed-file="$MUNGE_DIR/munged.seed" \
        --log-file="$MUNGE_DIR/munged.log" </dev/null >/dev/null 2>&1 ||
        die "munged failed; see $MUNGE_DIR/munged.log"
    wait_for "$TIMEOUT" munge_ok || die "munge does not answer; see $MUNGE_DIR/munged.log"
fi

if [[ $ACCOUNTING == 1 ]]; then
    if ! sql_alive; then
        log "starting mariadbd (127.0.0.1:$MYSQL_PORT)"
        rm -f "$SQL_SOCK"
        # mariadbd does not daemonize itself: detach it from this shell
        setsid mariadbd --no-defaults --datadir="$BASE/mysql/data" --socket="$SQL_SOCK" \
            --pid-file="$RUN/mariadb.pid" --log-error="$BASE/log/mariadb.log" \
            --bind-address=127.0.0.1 --port="$MYSQL_PORT" --user="$(id -un)" \
            --skip-name-resolve --innodb-buffer-pool-size=64M </dev/null >/dev/null 2>&1 &
        disown || true
    fi
    wait_for "$TIMEOUT" sql_ok || die "mariadbd does not answer; see $BASE/log/mariadb.log"
    if [[ -e $BASE/mysql/.needs-user ]]; then
        DBPASS=$(grep -E '^StoragePass=' "$DBD_CONF" | cut -d= -f2-)
        mariadb --no-defaults -S "$SQL_SOCK" -e "
            CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
            CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" || die "creating the database user failed"
        rm -f "$BASE/mysql/.needs-user"
    fi
    if ! dbd_alive; then
        log "starting slurmdbd (127.0.0.1:$DBD_PORT)"
        # slurmdbd reads slurmdbd.conf from the directory of SLURM_CONF
        slurmdbd </dev/null >/dev/null 2>&1 || die "slurmdbd failed; see $BASE/log/slurmdbd.log"
    fi
    wait_for "$TIMEOUT" dbd_ok || die "slurmdbd does not answer; see $BASE/log/slurmdbd.log"
    if [[ -z $(sacctmgr -n -P show cluster jubex format=cluster 2>/dev/null) ]]; then
        sacctmgr -i add cluster jubex >/dev/null || die "sacctmgr add cluster failed"
    fi
fi

if ! ctld_alive; then
    log "starting slurmctld (127.0.0.1:$CTLD_PORT)"
    slurmctld -f "$CONF" </dev/null >/dev/null 2>&1 || die "slurmctld failed; see $BASE/log/slurmctld.log"
fi
wait_for "$TIMEOUT" ctld_ok || die "slurmctld does not answer; see $BASE/log/slurmctld.log"

for n in $(node_names); do
    if ! slurmd_alive "$n"; then
        log "starting slurmd for node $n"
        slurmd -f "$CONF" -N "$n" </dev/null >/dev/null 2>&1 || die "slurmd -N $n failed; see $BASE/log/slurmd-$n.log"
    fi
done

nodes_up() {
    local up
    up=$(sinfo -h -N -p debug -o '%N %T' 2>/dev/null | awk '$2 == "idle" || $2 == "mixed" || $2 == "allocated"' | wc -l)
    [[ $up -eq $NODES ]]
}
if ! wait_for "$TIMEOUT" nodes_up; then
    sinfo -N >&2 || true
    die "nodes did not become idle; see $BASE/log/"
fi

printf 'export SLURM_CONF=%q\n' "$CONF" >"$BASE/env.sh"
log "cluster up: $NODES node(s), partitions debug (default) and batch, accounting=$ACCOUNTING; SLURM_CONF=$CONF"
sinfo >&2
cat "$BASE/env.sh"
