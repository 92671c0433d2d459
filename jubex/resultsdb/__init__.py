"""A centre's results database: every published run of every user and site in one place.

``connect`` finds and opens it (SQLite by default, PostgreSQL for a centre), ``schema``
holds its tables (docs/database.md), ``publish`` writes a run into it, ``select`` finds
runs by a ``db:`` selector and opens them as runs, ``samples`` reads a metric's samples
over time (``jubex query``, ``jubex history``).
"""
