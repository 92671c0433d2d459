"""A table as a definition file states it, built from rows shaped like the run store's."""

from jubex.api import load
from jubex.language.values import parse_value
from jubex.results.tables.formats import render
from jubex.results.tables.table import build_table

DEFINITION = """\
name: sweep
parameters:
  api: [POSIX, MPIIO]
  transfer: [4KiB, 1MiB]
steps:
  run:
    do: ior -a $api -t $transfer
    iterations: 3
    analyse: ior
results:
  bandwidth:
    group_by: [api, transfer]
    filter: "write_max > 0"
    columns:
      - {name: write_max, stats: [n, mean, std], unit: GiB/s, format: ".2f", title: write}
      - {name: per_kib, expr: "write_max_mean / (transfer / 1024)", format: ".3g"}
    sort: [-write_max]
"""


def test_definition_table_end_to_end(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(DEFINITION)
    table = load(path).tables["bandwidth"]
    rows = []
    for api in ("POSIX", "MPIIO"):
        for transfer in ("4KiB", "1MiB"):
            for it in range(3):
                bw = (2048.0 if api == "MPIIO" else 1024.0) + 1024 * it
                rows.append(
                    {
                        "api": api,
                        "transfer": parse_value(transfer, "size"),
                        "write_max": bw if transfer == "1MiB" or it else 0.0,
                        "jube_wp_id": len(rows),
                        "jube_wp_iteration": it,
                        "ok": True,
                    }
                )
    result = build_table(rows, table, {"write_max": "MiB/s"}, {"write_max": True})
    assert [h.label for h in result.headers] == [
        "api",
        "transfer",
        "write n",
        "write mean [GiB/s]",
        "write std [GiB/s]",
        "per_kib",
        "flags",
    ]
    first = result.records()[0]
    assert (first["api"], str(first["transfer"])) == ("MPIIO", "4KiB")
    assert first["write_max_mean"] == 3.5  # (3072 + 4096) / 2 MiB/s in GiB/s
    assert first["per_kib"] == 896.0  # expressions see values in their own unit (MiB/s)
    assert result.column("write_max_n") == [2, 3, 2, 3]
    text = render(result, table.style)
    assert "2 row(s) left out by the filter 'write_max > 0'" in text
    assert "3.00" in text  # MPIIO mean of 2, 3, 4 GiB/s
