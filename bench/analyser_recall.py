"""Recall of the built-in analysers over tests/data/outputs, per tool and dialect.

    python bench/analyser_recall.py            # a Markdown table per dialect
    python bench/analyser_recall.py --files    # and one row per file

Independently of the analysers, each output's *result lines* are picked by what every
version of the program prints on them (IOR's result rows and summary, mdtest's SUMMARY rows
and task counts, fio's direction, latency, percentile and group lines, IO500's
``[RESULT]``/``[SCORE]`` lines and ``result.txt`` keys), and every number printed there
(``12.3k`` expanded) is looked for among the values the analyser reports for that file, in
any of the units the analysers convert between (x 1, 1000, 1024 and their powers, either
way). Recall is the share of those numbers found; zeros are left out (a zero is a column of
an operation that did not run, which the analysers leave out on purpose). The verdict
column compares the analyser's ok with the file's name (``err_`` files are failed runs,
``unread_`` files a form not read, which must be judged failed as well).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

from jubex.analysis import builtin

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ROOT / "tests/data/outputs"

#: file (relative to OUTPUTS) -> (analyser, dialect); every benchmark output is listed
DIALECTS: dict[str, tuple[str, str]] = {}
for path in sorted(OUTPUTS.rglob("*")):
    if path.suffix in (".md", ".csv", ".ini") or not path.is_file():
        continue
    rel = path.relative_to(OUTPUTS).as_posix()
    if rel.endswith(("io500_list.txt", "timestampfile")):
        continue
    tool = rel.split("/")[0]
    if rel.startswith("io500/run_np2/ior-"):
        tool = "ior"
    elif rel.startswith("io500/run_np2/mdtest-"):
        tool = "mdtest"
    DIALECTS[rel] = (tool, "")

_DIALECT_RULES = (  # (analyser, pattern of the relative path, dialect)
    ("io500", r"prerelease2017", "pre-release scripts 2017"),
    ("io500", r"capp2017", "first C application 2017"),
    ("io500", r"bash201[78]", "bash harness 2017-2018"),
    ("io500", r"bash2019|bash2020", "bash harness 2019-2020"),
    ("io500", r"isc20", "C harness ISC20"),
    ("io500", r"sc21|v2024|run_np2|verify", "C harness SC21-2026"),
    ("mdtest", r"v1\.", "mdtest 1.9"),
    ("mdtest", r"v3\.|isc20", "mdtest 3.x"),
    ("mdtest", r".", "mdtest 4.x"),
    ("fio", r"terse|minimal", "fio 3.x terse"),
    ("fio", r"client.*\.json$", "fio 3.x client/server JSON"),
    ("fio", r"client", "fio 3.x client/server normal"),
    ("fio", r"appended", "fio 3.x JSON, several documents"),
    ("fio", r"v2.*json", "fio 2.x JSON"),
    ("fio", r"v2_", "fio 2.x normal"),
    ("fio", r"json", "fio 3.x JSON"),
    ("fio", r".", "fio 3.x normal"),
    ("ior", r"csv", "IOR CSV"),
    ("ior", r"json", "IOR JSON"),
    ("ior", r"v3\.0|v3\.3|io500/run_np2", "IOR 3.x text"),
    ("ior", r".", "IOR 4.x text"),
)
for rel, (tool, _) in DIALECTS.items():
    DIALECTS[rel] = (
        tool,
        next(d for t, pattern, d in _DIALECT_RULES if t == tool and re.search(pattern, rel)),
    )

#: the lines that carry results, per analyser (what every version prints on them)
RESULT_LINES = {
    "ior": re.compile(
        r"^\s*(?:write|read|remove)\s+\d|^(?:write|read),\d|^Max (?:Write|Read):|"
        r"^\s*\"(?:bw|iops|latency|openTime|wrRdTime|closeTime|totalTime|MeanTime|max|min|mean|bwMaxMIB|bwMinMIB|"
        r"bwMeanMIB|OPsMax|OPsMin|OPsMean)\"",
        re.MULTILINE,
    ),
    "mdtest": re.compile(
        r"^\s*(?:Directory|File|Tree)\s+\w+(?: \(stonewall\))?\s*:?\s+[\dN]|"
        r"^\d+ tasks, \d+|was launched with",
        re.MULTILINE,
    ),
    "fio": re.compile(
        r"^\s*(?:read|write|trim)\s*: (?:IOPS|io)=|^\s*(?:slat|clat|lat|sync)\s*\(\w+\):\s*min=|"
        r"^\s*\|.*th=\[|^\s*(?:READ|WRITE|TRIM): |^\s*\"(?:io_bytes|bw_bytes|iops|runtime|min|"
        r"max|mean|stddev|\d+\.\d+)\"|^[345];fio-",
        re.MULTILINE,
    ),
    "io500": re.compile(
        r"^\[(?:RESULT|RESULT-invalid| {6}|SCORE ?|SCOREX|SCORE-invalid)\]|"
        r"^(?:score|t_delta|throughput-stonewall|rate-stonewall|found|total-files|MD|BW|SCORE)"
        r"\s*=|^\d+/[\w-]+(?: \(\w+\))? (?:BW|IOPs):|^IO-500 (?:bw |md )?score:|^\[Result\] ",
        re.MULTILINE,
    ),
}
#: what a result line says that is not a result: dates, file names, percentile points
_NOT_RESULT = re.compile(
    r"\d+\.\d+th=|\d+(?:\.\d+)?%=|\(\w+\.c:\d+\)|\d{2}/\d{2}/\d{4}|\d+:\d+:\d+|phase +\d+|"
    r"^\d+/|IO-500"
)
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)([kKMG])?(?![\w.])")
_SUFFIX = {None: 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
FACTORS = sorted({b**e * s for b in (1000, 1024) for e in range(4) for s in (1, -1)})
#: MB (IOR's MB/sec, IO500's pre-release scripts) in GiB and the like: 1000**a / 1024**b
MIXED = sorted({1000**a / 1024**b for a in range(4) for b in range(4) if a and b})


def printed_numbers(tool: str, text: str) -> list[float]:
    """The non-zero numbers of the output's result lines."""
    found = []
    for match in RESULT_LINES[tool].finditer(text):
        end = text.find("\n", match.start())
        line = _NOT_RESULT.sub(" ", text[match.start() : len(text) if end < 0 else end])
        if line.lstrip().startswith('"'):  # JSON: the value, not the key ("99.000000" : 12)
            line = line.partition(":")[2]
        for number, suffix in _NUMBER.findall(line):
            value = float(number) * _SUFFIX[suffix or None]
            if value:
                found.append(value)
    if "|" in text:  # fio percentile lines: the values in brackets only
        found += [
            float(v) * _SUFFIX[s or None]
            for v, s in re.findall(r"th=\[\s*(\d+(?:\.\d+)?)([kKMG])?\]", text)
            if float(v)
        ]
    return found


def reported(value: float, values: list[float]) -> bool:
    """Whether ``value`` is among ``values`` in some unit the analysers convert between."""
    scales = [f if f > 0 else 1 / -f for f in FACTORS] + MIXED + [1 / m for m in MIXED]
    for factor in scales:
        scaled = value * factor
        if any(abs(v - scaled) <= 1e-6 * abs(scaled) for v in values):
            return True
    return False


def measure(rel: str) -> tuple[int, int, bool]:
    """(numbers printed on result lines, of them reported, verdict as expected)."""
    tool = DIALECTS[rel][0]
    text = (OUTPUTS / rel).read_text(errors="replace")
    result = builtin.get(tool).parse(text)
    values = [
        float(m.value)
        for m in result.measurements
        if isinstance(m.value, int | float) and not isinstance(m.value, bool)
    ]
    numbers = printed_numbers(tool, text)
    found = sum(reported(n, values) for n in numbers)
    return len(numbers), found, result.ok is not Path(rel).name.startswith(("err_", "unread_"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="also one row per file")
    args = parser.parse_args()
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    rows = []
    for rel, key in DIALECTS.items():
        printed, found, verdict = measure(rel)
        total = totals[key]
        total[0] += 1
        total[1] += printed
        total[2] += found
        total[3] += verdict
        rows.append((rel, printed, found, verdict))
    print(
        "| tool | dialect | files | numbers on result lines | reported | recall | verdicts right |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (tool, dialect), (files, printed, found, right) in sorted(totals.items()):
        recall = f"{100 * found / printed:.1f} %" if printed else "-"
        print(
            f"| {tool} | {dialect} | {files} | {printed} | {found} | {recall} | {right}/{files} |"
        )
    if args.files:
        print("\n| file | numbers | reported | verdict right |\n| --- | --- | --- | --- |")
        for rel, printed, found, verdict in rows:
            print(f"| {rel} | {printed} | {found} | {'yes' if verdict else 'NO'} |")


if __name__ == "__main__":
    main()
