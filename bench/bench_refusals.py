"""How fast hostile input is refused: the CPU time of each refusal the tests check, against
the bound it must meet (median of --runs runs; CPU time, steadier than wall time on a
shared machine). Exit status 1 when a bound is missed.

    python bench/bench_refusals.py --runs 3 [--only laughs]

The tests check that each input is refused and with which message; how fast is measured
here. Commands in their own process (``jubex validate`` of a file of 100,000 parameters,
...) are measured by bench/bench_bounded_sizes.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from jubex.definition.tags import tag_matches
from jubex.definition.xml_spelling import parse_xml
from jubex.definition.yaml_tree import read_yaml
from jubex.errors import JubexError
from jubex.language.expr import compile_expr
from jubex.language.ranges import linear


def laughs(levels: int = 9) -> str:
    """YAML aliases that would expand 10^levels times."""
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 10)}]")
    return "\n".join(lines) + "\n"


def entity_bomb() -> bytes:
    levels = ['<!ENTITY l0 "lol">'] + [
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)
    ]
    return f'<!DOCTYPE jubex [{"".join(levels)}]><jubex name="&l9;"/>'.encode()


#: name -> (the refusal, its bound in seconds of CPU)
CASES: dict[str, tuple[Callable[[], object], float]] = {
    "tag_700kB": (lambda: tag_matches("a|" + "<a>" * 100_000 + "1" + "</a>" * 100_000, {"a"}), 0.1),
    "laughs": (lambda: read_yaml(laughs(), "laughs.yaml"), 1.0),
    "deep_flow": (lambda: read_yaml("[" * 100_000 + "]" * 100_000, "deep.yaml"), 2.0),
    "deep_block": (lambda: read_yaml("- " * 100_000 + "x\n", "deep.yaml"), 2.0),
    "list_1e6": (
        lambda: read_yaml("p: [" + ", ".join(map(str, range(10**6))) + "]\n", "d.yaml"),
        2.0,
    ),
    "keys_1e5": (lambda: read_yaml("".join(f"p{i}: 1\n" for i in range(100_000)), "d.yaml"), 2.0),
    "entity_bomb": (lambda: parse_xml(entity_bomb(), "bomb.xml"), 1.0),
    "range_1e-9999999": (lambda: linear("1e-9999999", "1", "0.5"), 0.5),
    "range_of_1e9": (lambda: compile_expr("list(map(str, range(10 ** 9)))").evaluate({}), 2.0),
}


def cpu_of(case: Callable[[], object]) -> float:
    started = time.process_time()
    try:
        case()
    except JubexError:
        pass
    else:
        raise SystemExit("an input the bench expects refused was accepted")
    return time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(CASES))
    args = parser.parse_args()
    missed = 0
    print(f"{'case':<20} {'median CPU [s]':>15} {'bound [s]':>10}")
    for name in args.only or CASES:
        case, bound = CASES[name]
        median = statistics.median(cpu_of(case) for _ in range(args.runs))
        missed += median > bound
        print(f"{name:<20} {median:>15.3f} {bound:>10.1f}{'  MISSED' if median > bound else ''}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
