"""Continuous benchmarking: the pipelines that run studies from a centre's CI.

``targets.py`` says what a pipeline runs (each study on each platform, checked as ``jubex
validate`` checks it); ``gitlab.py`` and ``github.py`` write the pipeline of each CI
system (run, gate against history, publish, rebuild the dashboard); ``notify.py`` words
what a gate found for the team and posts it to a chat's webhook. This package reads
definitions, platforms and comparisons' JSON; the CLI (``jubex ci``) drives it.
"""
