"""The JUBE differential harness behind ``bench/jube_differential.py``.

``cases`` finds what to compare, ``env`` runs both tools as on a JSC login node, ``jube`` and
``jubex`` plan with each tool, ``plans`` compares two plans, ``endtoend`` runs, tabulates and
converts, ``driver`` is the command line.
"""
