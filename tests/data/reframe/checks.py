"""ReFrame checks whose run report tests jubex import-reframe (see SOURCES.md)."""

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import parameter, performance_function, run_after, sanity_function

#: dd's rate units (decimal, as dd prints them) in MB/s
MEGABYTES = {"k": 1e-3, "M": 1.0, "G": 1e3, "T": 1e6}


def megabytes(rate):
    """dd's ``1.1 GB/s`` in MB/s: a fast disk's rate is printed in GB/s."""
    number, unit = rate.split()
    return float(number) * MEGABYTES[unit[0]]


@rfm.simple_test
class DdWrite(rfm.RunOnlyRegressionTest):
    """dd's write rate with fsync, by block size; higher is better (a lower bound only)."""

    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    block = parameter(["64K", "1M"])
    executable = "dd"
    reference = {"*": {"write_bw": (50, -0.9, None, "MB/s")}}

    @run_after("init")
    def set_args(self):
        self.executable_opts = [
            "if=/dev/zero",
            "of=dd.out",
            f"bs={self.block}",
            "count=16",
            "conv=fsync",
        ]

    @sanity_function
    def validate(self):
        return sn.assert_found(r"copied", self.stderr)

    @performance_function("MB/s")
    def write_bw(self):
        return sn.extractsingle(r"copied, \S+ s, (\S+ [kMGT]B)/s", self.stderr, 1, megabytes)

    @performance_function("s")
    def elapsed(self):
        return sn.extractsingle(r"copied, (\S+) s,", self.stderr, 1, float)


@rfm.simple_test
class Unreachable(rfm.RunOnlyRegressionTest):
    """Measures, but its reference asks for more than any disk gives: fails its
    performance stage with its values measured."""

    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    executable = "echo"
    executable_opts = ["rate 42.5"]
    reference = {"*": {"rate": (1e9, -0.1, None, "ops/s")}}

    @sanity_function
    def validate(self):
        return sn.assert_found(r"rate", self.stdout)

    @performance_function("ops/s")
    def rate(self):
        return sn.extractsingle(r"rate (\S+)", self.stdout, 1, float)


@rfm.simple_test
class Broken(rfm.RunOnlyRegressionTest):
    """Fails its sanity check: measured nothing."""

    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    executable = "true"

    @sanity_function
    def validate(self):
        return sn.assert_found(r"never printed", self.stdout)

    @performance_function("s")
    def elapsed(self):
        return sn.extractsingle(r"(\S+)", self.stdout, 1, float)
