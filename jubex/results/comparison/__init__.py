"""Is a candidate worse than its baseline, beyond the noise? Where that is decided.

``compare`` decides for two result sets, ``compare_runs`` chooses points and metrics for
two runs, ``gate`` gives the verdict to CI (JSON, JUnit). Imports ``samples``,
``statistics`` and ``tables``.
"""
