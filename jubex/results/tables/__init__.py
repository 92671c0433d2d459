"""Result tables: columns, grouping, peaks, pivots, formats, and the tables of runs.

Answers "how is a table built from rows, and how is it printed?": ``tabulate`` reads runs
into tables, ``table`` builds one, ``formats`` writes it, ``dimensions`` keeps runs that
differ apart, ``keys`` names a point, ``check`` checks a definition's tables. Imports
``samples`` and ``statistics``.
"""
