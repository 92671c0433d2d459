"""Beside the stages: the run directory, its SQLite store and the frozen run it holds."""
