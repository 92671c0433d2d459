"""The shipped definitions and the ``jubex init`` starters put their text values into commands
as ``${quote(name)}``: even with ``--allow-shell-syntax`` a hostile ``-p`` value reaches the
program as one word and runs nothing. Real runs on a platform whose programs record their
arguments, so the job scripts jubex renders are the ones a shell executes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "$(touch PWNED) `touch PWNED`;touch PWNED"

#: each program writes its arguments, one per line between < >, to argv.txt where it runs
RECORDER = """#!/bin/sh
for a in "$@"; do printf '<%s>\\n' "$a"; done >> argv.txt
"""

PLATFORM = """name: recorder
scheduler: local
launcher: "{argv}"
resources: {{nodes: 1, tasks_per_node: 1, threads: 1}}
parameters: {{ior: "{argv}", mdtest: "{argv}", fio: "{argv}", io500: "{argv}"}}
filesystems: {{data: {{path: "$HOME/data", kind: local, default: true}}}}
template: |
  #!/bin/sh
  {{{{ body }}}}
"""

#: (definition, the value given the hostile text, the other -p and -t arguments)
CASES = [
    ("benchmarks/fio.yaml", "rw", ["-p", "bs=4k", "-p", "numjobs=1"]),
    ("benchmarks/fio.yaml", "ioengine", ["-p", "bs=4k", "-p", "numjobs=1", "-p", "rw=read"]),
    ("benchmarks/fio.yaml", "dir", ["-p", "bs=4k", "-p", "numjobs=1", "-p", "rw=read"]),
    ("benchmarks/ior.yaml", "api", ["-p", "nodes=1", "-p", "access=fpp", "-p", "transfer=1m",
                                    "-p", "block=1g"]),
    ("benchmarks/ior.yaml", "dir", ["-p", "nodes=1", "-p", "access=fpp", "-p", "transfer=1m",
                                    "-p", "block=1g", "-p", "api=POSIX"]),
    ("benchmarks/mdtest.yaml", "dir", ["-p", "nodes=1", "-p", "files=1000", "-p", "depth=0"]),
    ("benchmarks/io500.yaml", "dir", []),
    ("benchmarks/io500.yaml", "config", ["-t", "harness"]),
    ("fio", "rw", ["-p", "bs=4k"]),
    ("ior", "transfer", ["-t", "real", "-p", "tasks=1"]),
    ("io500", "config", []),
]  # fmt: skip


@pytest.mark.parametrize(("definition", "name", "others"), CASES, ids=lambda c: str(c))
def test_a_hostile_value_stays_one_word_through_each_shipped_definition(
    definition: str, name: str, others: list[str], tmp_path: Path
) -> None:
    recorder = tmp_path / "argv"
    recorder.write_text(RECORDER)
    recorder.chmod(0o755)
    (tmp_path / "platforms").mkdir()
    (tmp_path / "platforms" / "recorder.yaml").write_text(PLATFORM.format(argv=recorder))
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
           "JUBEX_PLATFORM_PATH": str(tmp_path / "platforms"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}  # fmt: skip
    (tmp_path / "data").mkdir()

    def jubex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jubex", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    if definition.endswith(".yaml"):
        path = str(REPO / definition)
    else:
        assert jubex("init", definition).returncode == 0
        path = f"{definition}.yaml"
    done = jubex("run", "-q", path, "-P", "recorder", "--allow-shell-syntax", "--outpath", "runs",
                 "-p", f"{name}={HOSTILE}", *others)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    words = [w for f in tmp_path.rglob("argv.txt") for w in f.read_text().split("\n")]
    assert words, done.stdout + done.stderr  # the job scripts ran the programs
    assert any(HOSTILE in w for w in words), words  # one word, as given
    assert not list(tmp_path.rglob("PWNED"))
