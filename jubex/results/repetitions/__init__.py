"""How many repetitions a point gets: the rounds after ``iterations: {min, max, until}``.

Answers "which held iterations run next?" (``repeat``, called between rounds of a run).
Imports ``samples``, ``statistics``, ``tables`` and ``comparison``.
"""
