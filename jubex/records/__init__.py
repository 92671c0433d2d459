"""Results other harnesses measured, as jubex runs.

A record (``record.py``, docs/record.md) is jubex's reporting protocol: what any harness
can write so that its results publish, compare and plot as jubex's own. ``reframe.py``
makes records of ReFrame's run reports. This package comes after the results and the
results database (it reads units' better directions) and before the library and the CLI.
"""
