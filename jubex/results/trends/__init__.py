"""A metric over many runs: how it moved, and the runs where it changed.

Answers "when did this number change?" (``history``). Imports ``samples``, ``statistics``,
``tables`` and ``comparison``.
"""
