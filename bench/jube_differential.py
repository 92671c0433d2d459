"""Differential check of jubex against JUBE itself, on real JUBE suites and JUBE's examples.

jubex promises to run existing JUBE suites unchanged. The strongest evidence is to let JUBE and
jubex plan the same file with the same tags and compare, step by step, the workpackages each
creates and the parameter values each workpackage gets (``jube_diff.jube``, ``jube_diff.jubex``,
``jube_diff.plans``); with ``--end-to-end``, JUBE's examples are also run, analysed and
tabulated by both and their result tables and databases compared, and every file jubex plans is
converted and planned again (``jube_diff.endtoend``).

* JUBE plans in its debug mode (``jube --debug run``), which creates every workpackage and
  evaluates every parameter (shell and python ones included) but runs no ``<do>`` and copies no
  file. JUBE deletes the run directory at the end of a debug run, so JUBE is driven through a
  three-line wrapper that keeps it; ``jube info OUT -i last -s STEP -c SEP`` then prints each
  step's workpackages with their parameter values, one line per workpackage.
* jubex plans with ``jubex run FILE --dry-run --format json`` and is also asked to
  ``jubex validate`` the file: the two must agree on whether the file is valid.
* Both run inside one private mount namespace in which ``/etc/FZJ/systemname`` exists (an
  overlay on ``/etc``, the real ``/etc`` is never touched) and ``$SYSTEMNAME`` is set, as on a
  JSC login node, because many suite files read one or the other.

What is compared, per step:

* the number of workpackages, and the multiset of their parameter dictionaries;
* the parameter names the definition gives, i.e. every name except JUBE's ``jube_*`` builtins:
  those hold ids, absolute paths and time stamps that differ between any two runs; of them only
  ``jube_wp_iteration`` is kept (jubex reports it as the workpackage's ``iteration``);
* values as JUBE's CSV prints them: JUBE writes a line break inside a value as a space, so
  jubex's values get the same treatment; a workpackage's own directory and the run directory
  are replaced by ``<WP>`` and ``<RUN>`` on both sides.

Each case ends in one of: ``jube-refuses`` (not counted: not a valid JUBE case),
``jubex-refuses`` (jubex's first error line), ``differs`` (the first differences) or
``agrees``. JUBE's plans are cached, keyed by the content of the benchmark file and its
neighbours, the tags, the system name and JUBE's version, so that re-runs only re-run jubex.

Usage (JUBE installed separately; its sources, with ``examples/`` and ``platform/``, and the
suites' checkouts side by side below SOURCES)::

    JUBEX_JUBE=/path/to/bin/jube python bench/jube_differential.py --sources SOURCES \\
        --report report.json [--only SUBSTRING] [--jobs 2] [--end-to-end]
    python bench/jube_differential.py --sources SOURCES --list      # the discovered cases

Without a JUBE (neither ``$JUBEX_JUBE`` nor ``jube`` on the path) it prints one line saying so
and exits 0.
"""

from __future__ import annotations

import sys

from jube_diff.driver import main

if __name__ == "__main__":
    sys.exit(main(description=__doc__))
