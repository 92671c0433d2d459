"""Plots and the HTML report of a study: what a reader sees of many runs.

Answers "where does a plot or the HTML report come from?" (``plotdata`` and ``plot``,
``default_plots``, ``report_study`` and ``report_html`` with ``templates/``). Imports every
room before it.
"""
