"""Fuzz the built-in analysers with mutated real outputs, as `jubex parse` reads them.

    python bench/fuzz_analysers.py                     # 10,000 inputs per analyser
    python bench/fuzz_analysers.py --count 500 --analyser fio --seed 7
    python bench/fuzz_analysers.py --keep /tmp/slowest   # also write each slowest input

Every input is a captured output of tests/data/outputs (the outputs of other sites among
them, and the hand-written IO500 extended run of tests/analysis/builtin/data) with one to
three mutations: a flipped bit, a truncation, a duplicated or deleted line, a number made
huge, non-finite or negative, a unit the program never prints. Counted per analyser:
inputs, results that are ok, clean failures (ok False with a reason), tracebacks (any
exception: must be 0), truncations of a complete output that still read as complete with
other values than the whole output (a log of several runs cut after a whole run may read
as its first runs), the slowest input (timed again, median of five) and the peak memory
one parse allocates. Exit status 1 when there was a traceback.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import traceback
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from jubex.analysis import builtin
from jubex.analysis.harvest import with_statistics
from jubex.analysis.measurement import ParseResult

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ROOT / "tests/data/outputs"
EXTENDED = ROOT / "tests/analysis/builtin/data/io500_extended"
CORPUS = {
    "ior": [*OUTPUTS.glob("ior/*.txt"), *OUTPUTS.glob("io500/run_np2/ior-*.txt")],
    "mdtest": [*OUTPUTS.glob("mdtest/*.txt"), *OUTPUTS.glob("io500/run_np2/mdtest-*.txt")],
    "fio": [*OUTPUTS.glob("fio/*.txt"), *OUTPUTS.glob("fio/*.json")],
    "io500": [
        *OUTPUTS.glob("io500/*stdout.txt"),
        *OUTPUTS.glob("io500/*summary*.txt"),
        *OUTPUTS.glob("io500/*result.txt"),
        *OUTPUTS.glob("io500/prerelease2017_*.txt"),
        *OUTPUTS.glob("io500/*capp2017_*.txt"),
        OUTPUTS / "io500/run_np2/result.txt",
        OUTPUTS / "io500/run_np2/result_summary.txt",
        *EXTENDED.glob("*.txt"),
    ],
}
HUGE = ("1e400", "-1e400", "nan", "inf", "-inf", "-5.0", "9" * 5000, "1e308", "0x1p3")
UNITS = ("MiB/s", "GiB/s", "KiB/s", "MB/s", "kIOPS", "usec", "nsec", "msec", "MiB", "GiB")
STRANGE_UNITS = ("XiB/s", "QB/s", "kQOPS", "fortnights", "MiB/h", "", "B/s/s")


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One mutation of ``data`` and its name."""
    kind = rng.choice(("flip", "truncate", "duplicate", "delete", "number", "unit"))
    if kind == "flip" and data:
        at = rng.randrange(len(data))
        return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :], kind
    if kind == "truncate":
        return data[: rng.randrange(len(data) + 1)], kind
    lines = data.splitlines(keepends=True)
    if kind in ("duplicate", "delete") and lines:
        at = rng.randrange(len(lines))
        lines[at : at + 1] = [lines[at]] * (2 if kind == "duplicate" else 0)
        return b"".join(lines), kind
    text = data.decode("utf-8", errors="replace")
    if kind == "number":
        spots = [i for i in range(1, len(text)) if text[i].isdigit() and not text[i - 1].isdigit()]
        if spots:
            at = rng.choice(spots)
            end = at
            while end < len(text) and (text[end].isdigit() or text[end] == "."):
                end += 1
            return (text[:at] + rng.choice(HUGE) + text[end:]).encode(), kind
    found = [u for u in UNITS if u in text]
    if found:
        unit = rng.choice(found)
        return text.replace(unit, rng.choice(STRANGE_UNITS), rng.randint(1, 3)).encode(), "unit"
    return data, "none"


def values(result: ParseResult) -> list[tuple[int, str, str]]:
    return sorted((m.record, m.name, repr(m.value)) for m in result.measurements)


def parser(name: str) -> Callable[[str], ParseResult]:
    """The analyser followed by the statistics over its per-iteration values, as `jubex parse`."""
    analyser = builtin.get(name)

    def parse(text: str) -> ParseResult:
        result = analyser.parse(text)
        result.measurements = with_statistics(analyser, result.measurements)
        return result

    return parse


def run(name: str, count: int, rng: random.Random) -> dict[str, object]:
    parse = parser(name)
    corpus = [path.read_bytes() for path in sorted(CORPUS[name])]
    whole = {data: parse(data.decode()) for data in corpus}
    figures: dict[str, object] = {"inputs": 0, "ok": 0, "clean errors": 0, "tracebacks": 0}
    figures |= {"truncations passed as complete": 0, "slowest s": 0.0, "peak KiB": 0.0}
    tracebacks: list[str] = []
    for _ in range(count):
        original = rng.choice(corpus)
        data, done = original, []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            data, kind = mutate(data, rng)
            done.append(kind)
        text = data.decode("utf-8", errors="replace")
        figures["inputs"] += 1  # type: ignore[operator]
        tracemalloc.start()
        start = time.perf_counter()
        try:
            result = parse(text)
        except Exception:  # the very thing counted: any exception is a finding
            tracebacks.append(f"{done}: {traceback.format_exc(limit=-3)}")
            figures["tracebacks"] += 1  # type: ignore[operator]
            continue
        finally:
            elapsed = time.perf_counter() - start
            peak = tracemalloc.get_traced_memory()[1] / 1024
            tracemalloc.stop()
        if elapsed > figures["slowest s"]:  # type: ignore[operator]
            figures["slowest s"], figures["slowest input"] = elapsed, f"{done}, {len(data)} B"
            figures["slowest text"] = text
        figures["peak KiB"] = max(figures["peak KiB"], peak)  # type: ignore[call-overload]
        figures["ok" if result.ok else "clean errors"] += 1  # type: ignore[operator]
        complete = whole[original]
        cut_short = done == ["truncate"] and data != original and complete.ok
        if cut_short and result.ok and not _fewer_runs(result, complete):
            figures["truncations passed as complete"] += 1  # type: ignore[operator]
    for text in tracebacks[:3]:
        print(text)
    if "slowest text" in figures:  # once is noisy on a shared machine: the median of five
        figures["slowest s"] = statistics.median(
            timed(parse, str(figures["slowest text"])) for _ in range(5)
        )
    return figures


def _fewer_runs(cut: ParseResult, whole: ParseResult) -> bool:
    """Whether ``cut`` has the whole output's values of the first records: a log of runs
    appended (mdtest), cut after a whole run, is a log of fewer runs."""
    records = {m.record for m in cut.measurements}
    kept = [v for v in values(whole) if v[0] in records]
    return values(cut) == kept and records == set(range(len(records)))


def timed(parse: Callable[[str], ParseResult], text: str) -> float:
    start = time.perf_counter()
    parse(text)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="inputs per analyser")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--analyser", choices=sorted(CORPUS), action="append")
    parser.add_argument("--keep", type=Path, help="folder to write each slowest input to")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failed = False
    print(
        "| analyser | inputs | ok | clean errors | tracebacks | truncations passed "
        "as complete | slowest input | peak memory |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.analyser or sorted(CORPUS):
        f = run(name, args.count, rng)
        failed |= bool(f["tracebacks"])
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"{name}.txt").write_text(str(f.get("slowest text", "")))
        print(
            f"| {name} | {f['inputs']} | {f['ok']} | {f['clean errors']} | {f['tracebacks']} "
            f"| {f['truncations passed as complete']} | {f['slowest s'] * 1000:.1f} ms "
            f"({f.get('slowest input', '-')}) | {f['peak KiB']:.0f} KiB |"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
