"""Where result tables go besides the screen: files, SQLite databases, syslog.

Answers "where was this table written?" (``deliver``; ``files``, ``database``, ``syslog``
for JUBE's ``result_dir``, ``<database>`` and ``<syslog>``). Imports ``samples``,
``statistics`` and ``tables``.
"""
