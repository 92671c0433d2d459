"""The long fuzz campaign of jubex's loaders: mutated inputs through validate, info and dry run.

    python bench/fuzz_inputs.py [--count 10000] [--seed 2026] [--timeout 20]

Targets: jubex YAML definitions, XML definitions (jubex and JUBE), JUBE YAML, platform files.
Inputs are the repository's examples, JUBE corpus files and shipped platforms (those that run
no shell command while expanding), mutated by byte flips, truncation, duplication, deep
nesting and huge numbers. Each goes through ``validate``, ``info`` and ``run --dry-run``
(platforms: ``jubex platform``) in-process, with a time limit per input and its peak
memory measured. Prints per target: inputs, clean errors, tracebacks (must be 0), slowest
input, peak memory; with ``--keep DIR`` the inputs that raised are written there.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import signal
import sys
import time
import traceback
import tracemalloc
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jubex.cli.main import main  # noqa: E402


def _seeds() -> dict[str, list[Path]]:
    corpus = ROOT / "tests/jube/corpus"
    found = {
        "definition.yaml": sorted((ROOT / "examples").glob("*.yaml")),
        "jube.xml": sorted(corpus.glob("*.xml")) + sorted((ROOT / "examples").glob("*.xml")),
        "jube.yaml": [p for p in sorted(corpus.glob("*.yaml")) if ".expected" not in p.name],
        "platform": sorted((ROOT / "jubex/data/platforms").glob("*.yaml")),
    }
    return {k: [p for p in v if "shell" not in p.read_text().lower()] for k, v in found.items()}


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(max(len(out), 1))
        kind = rng.choice(["flip", "cut", "duplicate", "nest", "number", "delete"])
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
        elif kind == "number":
            number = rng.choice(["9" * 5000, "1e400", "-0", "1" * 30, "nan", "0x" + "f" * 99])
            out[at:at] = number.encode()
        else:
            del out[at : at + rng.randint(1, 100)]
    return bytes(out)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def run_input(target: str, path: Path, timeout: int) -> tuple[str, float, int]:
    """'ok', 'error', 'timeout' or 'traceback'; seconds; peak bytes allocated."""
    commands = (
        [["platform", str(path)]]
        if target == "platform"
        else [["validate", str(path)], ["info", str(path)], ["run", "--dry-run", str(path)]]
    )
    outcome = "ok"
    tracemalloc.start()
    started = time.perf_counter()
    signal.alarm(timeout)
    try:
        for command in commands:
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = main(command)
            if code:
                outcome = "error"
    except _Timeout:
        outcome = "timeout"
    except Exception:  # what the campaign looks for
        outcome = "traceback:" + traceback.format_exc(limit=-1).strip().splitlines()[-1]
    finally:
        signal.alarm(0)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return outcome, seconds, peak


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=int, default=20, help="seconds per input")
    parser.add_argument("--keep", type=Path, help="write inputs that raised here")
    parser.add_argument("--targets", nargs="+", help="only these targets (default: all)")
    args = parser.parse_args()
    os.environ["JUBEX_DEBUG"] = "1"  # an internal error raises instead of being reported
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(args.seed)
    print(
        "| target | inputs | valid | clean errors | timeouts | tracebacks | slowest | peak memory |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    failures = 0
    with TemporaryDirectory() as tmp:
        os.chdir(tmp)
        for target, seeds in _seeds().items():
            if args.targets and target not in args.targets:
                continue
            counts = {"ok": 0, "error": 0, "timeout": 0, "traceback": 0}
            run_input(target, seeds[0], 600)  # warm-up: the first run imports the modules
            slowest, peak = 0.0, 0
            for number in range(args.count):
                seed = rng.choice(seeds)
                path = Path(tmp) / f"input{number % 10}{seed.suffix}"
                path.write_bytes(mutate(seed.read_bytes(), rng))
                outcome, seconds, used = run_input(target, path, args.timeout)
                kind = outcome.partition(":")[0]
                counts[kind] += 1
                slowest, peak = max(slowest, seconds), max(peak, used)
                if kind in ("traceback", "timeout"):
                    failures += 1
                    print(f"<!-- {target} {seed.name}: {outcome} -->", file=sys.stderr)
                    if args.keep:
                        args.keep.mkdir(parents=True, exist_ok=True)
                        (args.keep / f"{target}-{number}{seed.suffix}").write_bytes(
                            path.read_bytes()
                        )
            print(
                f"| {target} | {args.count} | {counts['ok']} | {counts['error']} | "
                f"{counts['timeout']} | {counts['traceback']} | {slowest:.2f} s | "
                f"{peak / 2**20:.1f} MiB |"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_())
