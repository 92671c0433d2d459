"""Numbers over the repetitions of one point: summaries, tests, spread, flags, targets.

Answers "how is a mean ± std computed, where are noise and outlier flags made, what does a
test assume, how tight must a point be?" (``stats``, ``spread`` with its outlier search in
``farthest`` and ``sweep``, ``flags``, ``significance``, ``experimental_unit``,
``targets``). Imports only ``samples``.
"""
