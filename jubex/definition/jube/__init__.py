"""JUBE's own input files (XML with root ``<jube>``, and JUBE's YAML) read into jubex's model."""

from jubex.definition.jube.reader import Loaded, load_jube, read_jube

__all__ = ["Loaded", "load_jube", "read_jube"]
