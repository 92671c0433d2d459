#!/usr/bin/env bash
# Measures the bundled kernels next to fio (and, for metadata, a plain Python loop) on the
# same access pattern, and prints the median of RUNS runs of each.  Recorded results and
# their reading: docs/performance.md, section "Kernels".
#
#   bench/bench_kernels.sh                 # in /tmp, 5 runs
#   BENCH_DIR=/scratch/me RUNS=9 bench/bench_kernels.sh
#
# Needs cc, make, fio and python3.  Writes 2 x 256 MiB per bandwidth run, removed afterwards.
set -euo pipefail

RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/tmp/jubex-bench-kernels}
ITEMS=${ITEMS:-10000} # files per task for the metadata runs
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(mktemp -d)
trap 'rm -rf "$BIN" "$BENCH_DIR"' EXIT

make -s -C "$HERE/kernels" OUT="$BIN"
rm -rf "$BENCH_DIR" && mkdir -p "$BENCH_DIR"

echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "# file system of $BENCH_DIR: $(df -T "$BENCH_DIR" | awk 'NR==2 {print $2 " on " $1}')"
echo "# $(fio --version), $(cc --version | head -1), runs: $RUNS"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# -- bandwidth: 2 tasks, file per process, 1 MiB transfers, 256 MiB each, fsync after write --
fio_bw() { # rw extra-args... -> aggregate MiB/s
    local rw=$1
    shift
    fio --name=bw --directory="$BENCH_DIR" --rw="$rw" --bs=1m --size=256m --numjobs=2 \
        --ioengine=psync --fallocate=none --group_reporting --output-format=json "$@" |
        python3 -c 'import json, sys
job = json.load(sys.stdin)["jobs"][0]
print(job["write" if sys.argv[1] == "write" else "read"]["bw_bytes"] / 2**20)' "$rw"
}

for f in bw.w bw.r fiobw.w fiobw.r fiobw.rd; do : >"$BIN/$f"; done
for _ in $(seq "$RUNS"); do
    out=$("$BIN/jubex-bw" -n 2 -F -e -t 1m -b 256m -o "$BENCH_DIR/bw")
    awk '/^write /{print $2; exit}' <<<"$out" >>"$BIN/bw.w"
    awk '/^read /{print $2; exit}' <<<"$out" >>"$BIN/bw.r"
    fio_bw write --end_fsync=1 >>"$BIN/fiobw.w"
    fio_bw read --invalidate=0 >>"$BIN/fiobw.r" # page cache kept, as jubex-bw and IOR read
    fio_bw read --invalidate=1 >>"$BIN/fiobw.rd" # fio's default: cache dropped first
    rm -f "$BENCH_DIR"/bw.*
done

# -- metadata: 2 tasks, ITEMS files each in one shared directory, create / stat / remove --
python_md() { # the same system calls from two Python processes, timed the same way
    python3 - "$BENCH_DIR/py" "$ITEMS" <<'EOF'
import multiprocessing as mp, os, sys, time
base, n = sys.argv[1], int(sys.argv[2])
def task(rank, barrier, out):
    names = [f"{base}/file.{rank}.{i}" for i in range(n)]
    for phase in ("create", "stat", "remove"):
        barrier.wait()
        t0 = time.monotonic()
        for name in names:
            if phase == "create":
                os.close(os.open(name, os.O_WRONLY | os.O_CREAT, 0o644))
            elif phase == "stat":
                os.stat(name)
            else:
                os.unlink(name)
        out.put((phase, time.monotonic() - t0))
os.makedirs(base, exist_ok=True)
barrier, out = mp.Barrier(2), mp.Queue()
procs = [mp.Process(target=task, args=(r, barrier, out)) for r in range(2)]
for p in procs: p.start()
spans = {}
for _ in range(6):
    phase, span = out.get()
    spans[phase] = max(span, spans.get(phase, 0))
for p in procs: p.join()
os.rmdir(base)
print(" ".join(f"{2 * n / spans[p]:.1f}" for p in ("create", "stat", "remove")))
EOF
}

fio_md() { # engine -> aggregate operations per second
    fio --name=md --directory="$BENCH_DIR" --ioengine="$1" --filesize=4k --fallocate=none \
        --openfiles=1 --nrfiles="$ITEMS" --numjobs=2 --group_reporting --output-format=json |
        python3 -c "import json,sys; print(json.load(sys.stdin)['jobs'][0]['read']['iops'])"
}

for f in md.c md.s md.r py.c py.s py.r fio.c fio.s fio.r; do : >"$BIN/$f"; done
for _ in $(seq "$RUNS"); do
    out=$("$BIN/jubex-md" -N 2 -F -n "$ITEMS" -d "$BENCH_DIR/md")
    rates=$(sed -n '/SUMMARY rate/,/^$/p' <<<"$out")
    awk '/File creation/{print $3}' <<<"$rates" >>"$BIN/md.c"
    awk '/File stat/{print $3}' <<<"$rates" >>"$BIN/md.s"
    awk '/File removal/{print $3}' <<<"$rates" >>"$BIN/md.r"
    read -r c s r <<<"$(python_md)"
    echo "$c" >>"$BIN/py.c" && echo "$s" >>"$BIN/py.s" && echo "$r" >>"$BIN/py.r"
    fio_md filecreate >>"$BIN/fio.c"
    fio_md filestat >>"$BIN/fio.s"
    fio_md filedelete >>"$BIN/fio.r"
    rm -rf "${BENCH_DIR:?}"/*
done

cell() { # file -> "median (min-max)" of its values
    local values
    values=$(sort -g "$1")
    printf '%.0f (%.0f-%.0f)' "$(median <<<"$values")" "$(head -1 <<<"$values")" \
        "$(tail -1 <<<"$values")"
}

printf '\n%-30s %22s %22s %22s\n' "median (min-max) of $RUNS" "jubex" "fio" "python"
printf '%-30s %22s %22s %22s\n' "write MiB/s, fsync at end" "$(cell "$BIN/bw.w")" \
    "$(cell "$BIN/fiobw.w")" "-"
printf '%-30s %22s %22s %22s\n' "read MiB/s, page cache kept" "$(cell "$BIN/bw.r")" \
    "$(cell "$BIN/fiobw.r")" "-"
printf '%-30s %22s %22s %22s\n' "read MiB/s, cache dropped" "-" "$(cell "$BIN/fiobw.rd")" "-"
for op in c:creation s:stat r:removal; do
    printf '%-30s %22s %22s %22s\n' "file ${op#*:} ops/s" "$(cell "$BIN/md.${op%%:*}")" \
        "$(cell "$BIN/fio.${op%%:*}")" "$(cell "$BIN/py.${op%%:*}")"
done
