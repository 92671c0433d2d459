"""The long fuzz campaign of jubex's loaders: mutated inputs through validate, info and dry run.

    python bench/fuzz_inputs.py [--count 10000] [--start 0] [--seed 2026] [--jobs 2]
                                [--timeout 20] [--targets T ...] [--keep DIR]

Targets: jubex YAML definitions, XML definitions (jubex and JUBE), JUBE YAML, platform files,
and bundles (``bench/fuzz_bundles.py``: hostile members, links, stores, bombs, manifests;
each imported, then read, analysed, exported and removed from; an input that changes a
directory outside its runs counts as a traceback).
Inputs are the repository's examples, JUBE corpus files and shipped platforms (those that run
no shell command while expanding), mutated by byte flips, truncation, duplication, deep
nesting and huge numbers. Input N of a target depends only on the seed, the target and N, so
``--start``/``--count`` split a campaign into parts that add up to the whole.

Each input runs ``validate``, ``info`` and ``run --dry-run`` (platforms: ``jubex platform``)
in a child forked from a process that has imported jubex once, so an input costs its own
work and not Python's start-up. The child is killed when it passes ``--timeout`` seconds;
its CPU time and peak resident memory (``ru_maxrss``, the whole process, imported modules
included) come from ``wait4``, so nothing slows the code being measured. ``--jobs`` children
run at once; the targets take turns, input by input, and SIGTERM or SIGINT ends the campaign
after the round it is in, with as many inputs done of each target and the ``--start`` of the
rest. Prints per target: inputs, valid, clean errors, timeouts, tracebacks (must be
0), inputs over the limits (2 s, 500 MB), slowest input and peak memory; progress goes to
standard error. With ``--keep DIR`` inputs that raised, timed out or passed a limit are
written there. Exit status 1 when an input raised, timed out or passed a limit.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import io
import os
import random
import resource
import shutil
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fuzz_bundles  # noqa: E402

from jubex.cli import main as cli  # noqa: E402
from jubex.cli.main import main  # noqa: E402

SECONDS_LIMIT = 2.0
BYTES_LIMIT = 500 * 2**20
ADDRESS_SPACE = 4 * 2**30  # a runaway child fails alone instead of starving the machine


def _seeds() -> dict[str, list[Path]]:
    corpus = ROOT / "tests/jube/corpus"
    found = {
        "definition.yaml": sorted((ROOT / "examples").glob("*.yaml")),
        "jube.xml": sorted(corpus.glob("*.xml"))
        + sorted((corpus / "lenient").glob("*.xml"))
        + sorted((ROOT / "examples").glob("*.xml")),
        "jube.yaml": [
            p
            for p in sorted([*corpus.glob("*.yaml"), *(corpus / "lenient").glob("*.yaml")])
            if ".expected" not in p.name
        ],
        "platform": sorted((ROOT / "platforms").rglob("*.yaml")),
    }
    return {k: [p for p in v if "shell" not in p.read_text().lower()] for k, v in found.items()}


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One to three mutations of ``data``, and their names."""
    out = bytearray(data)
    names = []
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(max(len(out), 1))
        kind = rng.choice(["flip", "cut", "duplicate", "nest", "number", "delete"])
        names.append(kind)
        if kind == "flip" and out:
            out[at] ^= 1 << rng.randrange(8)
        elif kind == "cut":
            del out[at:]
        elif kind == "duplicate":
            out[at:at] = out[at : at + rng.randint(1, 200)] * rng.randint(2, 50)
        elif kind == "nest":
            opening, closing = rng.choice([("[", "]"), ("{a: ", "}"), ("(", ")"), ("<a>", "</a>")])
            depth = rng.choice([50, 300, 5000, 100_000])
            out[at:at] = (opening * depth + "1" + closing * depth).encode()
            names[-1] = f"nest {depth}"
        elif kind == "number":
            number = rng.choice(["9" * 5000, "1e400", "-0", "1" * 30, "nan", "0x" + "f" * 99])
            out[at:at] = number.encode()
        else:
            del out[at : at + rng.randint(1, 100)]
    return bytes(out), ", ".join(names)


def make_input(seed: int, target: str, number: int, seeds: list[Path]) -> tuple[Path, bytes, str]:
    """Input ``number`` of ``target``: its seed file, bytes and mutations."""
    rng = random.Random(f"{seed}:{target}:{number}")
    source = rng.choice(seeds)
    change = fuzz_bundles.mutate_bundle if target == "bundle" else mutate
    data, how = change(source.read_bytes(), rng)
    return source, data, how


def _commands(target: str, path: Path) -> list[list[str]]:
    if target == "platform":
        return [["platform", str(path)]]
    if target == "bundle":
        return fuzz_bundles.commands(path)
    return [["validate", str(path)], ["info", str(path)], ["run", "--dry-run", str(path)]]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def _child(target: str, path: Path, report: int) -> None:
    """Run the commands on ``path`` and write the outcome to ``report``; never returns."""
    outcome = "ok"
    try:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        for command in _commands(target, path):
            with _quiet():
                if main(command):
                    outcome = "error"
        if target == "bundle" and (escape := fuzz_bundles.escaped()):
            outcome = f"traceback:{escape}"
    except BaseException:  # what the campaign looks for
        outcome = "traceback:" + traceback.format_exc(limit=-1).strip().splitlines()[-1]
    os.write(report, outcome.encode()[:4000])
    os._exit(0)


@dataclass
class Running:
    """A child at work on one input."""

    pid: int
    slot: int
    number: int
    source: Path
    how: str
    path: Path
    report: int
    started: float
    target: str
    killed: bool = False


@dataclass
class Tally:
    """What one target's inputs gave."""

    counts: dict[str, int] = field(
        default_factory=lambda: {"ok": 0, "error": 0, "timeout": 0, "traceback": 0}
    )
    slow: int = 0  # inputs over SECONDS_LIMIT of CPU
    large: int = 0  # inputs over BYTES_LIMIT resident
    slowest: tuple[float, str] = (0.0, "")  # CPU seconds, which input
    longest: tuple[float, str] = (0.0, "")  # wall seconds, which input
    peak: tuple[int, str] = (0, "")

    def add(self, outcome: str, cpu: float, wall: float, peak: int, which: str) -> bool:
        """Count one input; whether it is a finding (raised, timed out or passed a limit)."""
        kind = outcome.partition(":")[0]
        self.counts[kind] += 1
        self.slowest = max(self.slowest, (cpu, which))
        self.longest = max(self.longest, (wall, which))
        self.peak = max(self.peak, (peak, which))
        self.slow += cpu > SECONDS_LIMIT
        self.large += peak > BYTES_LIMIT
        return cpu > SECONDS_LIMIT or peak > BYTES_LIMIT or kind in ("traceback", "timeout")

    def row(self, target: str) -> str:
        return (
            f"| {target} | {sum(self.counts.values())} | {self.counts['ok']} | "
            f"{self.counts['error']} | {self.counts['timeout']} | {self.counts['traceback']} | "
            f"{self.slow} | {self.large} | {self.slowest[0]:.2f} s | {self.longest[0]:.2f} s | "
            f"{self.peak[0] / 2**20:.0f} MiB |"
        )

    def which(self, target: str) -> str:
        return (
            f"{target}: slowest {self.slowest[1]}; longest {self.longest[1]}; "
            f"largest {self.peak[1]}"
        )


def _start(target: str, number: int, slot: int, args: argparse.Namespace, tmp: Path) -> Running:
    """Write input ``number`` into the slot's directory and fork a child to run it."""
    work = tmp / f"slot{slot}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    source, data, how = make_input(args.seed, target, number, args.seeds[target])
    path = work / f"input{source.suffix}"
    path.write_bytes(data)
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(readable)
        os.chdir(work)
        _child(target, path, writable)
    os.close(writable)
    return Running(pid, slot, number, source, how, path, readable, time.monotonic(), target)


def _reap(running: dict[int, Running], timeout: float) -> tuple[Running, str, float, int, float]:
    """Wait for a child to end, killing those past ``timeout``: the child, its outcome, its
    CPU seconds, its peak resident bytes and its wall seconds."""
    while True:
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid:
            break
        now = time.monotonic()
        for child in running.values():
            if now - child.started > timeout and not child.killed:
                os.kill(child.pid, signal.SIGKILL)
                child.killed = True
        time.sleep(0.002)
    child = running.pop(pid)
    wall = time.monotonic() - child.started
    with os.fdopen(child.report, "rb") as report:
        outcome = report.read().decode(errors="replace")
    if not outcome:
        outcome = "timeout" if child.killed else f"traceback:wait status {status}"
    return child, outcome, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, wall


def campaign(targets: list[str], args: argparse.Namespace, tmp: Path) -> dict[str, Tally]:
    """Run inputs ``args.start`` to ``args.start + args.count`` of each target, taking the
    targets in turn, so that a campaign stopped early (SIGTERM, SIGINT) has looked at as many
    inputs of each: it finishes the round it is in, and says where to start again."""
    tallies = {target: Tally() for target in targets}
    stop: list[int] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda signum, frame: stop.append(signum))
    running: dict[int, Running] = {}
    free = list(range(args.jobs))
    order = iter(
        enumerate(
            (target, number)
            for number in range(args.start, args.start + args.count)
            for target in targets
        )
    )
    step = next(order, None)
    while step is not None or running:
        while step is not None and free:
            position, (target, number) = step
            if stop and position % len(targets) == 0:
                print(f"stopped: run the rest with --start {number}", file=sys.stderr, flush=True)
                step = None
                break
            child = _start(target, number, free.pop(), args, tmp)
            running[child.pid] = child
            step = next(order, None)
        if not running:
            break
        child, outcome, cpu, peak, wall = _reap(running, args.timeout)
        free.append(child.slot)
        which = f"#{child.number} {child.source.name}: {child.how}"
        if tallies[child.target].add(outcome, cpu, wall, peak, which):
            print(
                f"<!-- {child.target} {which}: {outcome}, {cpu:.2f} s CPU, {wall:.2f} s wall, "
                f"{peak / 2**20:.0f} MiB -->",
                file=sys.stderr,
                flush=True,
            )
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                name = f"{child.target}-{child.number}{child.source.suffix}"
                shutil.copyfile(child.path, args.keep / name)
        done = sum(sum(t.counts.values()) for t in tallies.values())
        if done % 1000 == 0:
            print(f"{done:,} inputs of {args.count * len(targets):,}", file=sys.stderr, flush=True)
    return tallies


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="inputs per target")
    parser.add_argument("--start", type=int, default=0, help="number of the first input")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="children at once")
    parser.add_argument("--timeout", type=float, default=20, help="seconds per input")
    parser.add_argument("--keep", type=Path, help="write inputs that raised here")
    parser.add_argument("--targets", nargs="+", help="only these targets (default: all)")
    args = parser.parse_args()
    os.environ["JUBEX_DEBUG"] = "1"  # an internal error raises instead of being reported
    # argparse's parser is two thirds of a small input's CPU time, and the same every time
    cli.build_parser = functools.lru_cache(maxsize=None)(cli.build_parser)
    args.seeds = seeds = _seeds()
    print(
        "| target | inputs | valid | clean errors | timeouts | tracebacks | over 2 s CPU "
        "| over 500 MB | slowest (CPU) | longest (wall) | peak memory (RSS) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    targets = args.targets or [*seeds, "bundle"]
    with TemporaryDirectory() as tmp:
        work = Path(tmp) / "warm-up"
        work.mkdir()
        os.chdir(work)
        if "bundle" in targets:
            fuzz_bundles.VICTIM = Path(tmp) / "victim"
            (fuzz_bundles.VICTIM / "keep").mkdir(parents=True)
            with _quiet():
                seeds["bundle"] = [fuzz_bundles.seed_bundle(Path(tmp))]
        for target in targets:
            shutil.copyfile(seeds[target][0], work / seeds[target][0].name)
            with _quiet():
                for command in _commands(target, work / seeds[target][0].name):
                    main(command)  # imports what the target needs once, before the forks
        gc.collect()
        gc.freeze()  # the children leave the parent's objects shared
        tallies = campaign(targets, args, Path(tmp))
    failures = 0
    for target, tally in tallies.items():
        failures += sum((tally.counts["traceback"], tally.counts["timeout"], tally.slow))
        failures += tally.large
        print(tally.row(target), flush=True)
        print(tally.which(target), file=sys.stderr, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_())
