"""What a table reads: the rows of a run, the samples in a row and per execution.

Answers "where do the rows and values of a table come from?": rows of a run store
(``rows``), which workpackages shared the machine (``concurrency``), which values are a
program's own summary of repetitions (``summaries``), units of values (``units``).
Imports no other room of ``jubex.results``.
"""
