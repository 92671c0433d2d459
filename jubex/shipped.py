"""Where the platform library and the kernels shipped with jubex are.

They live at the top of the repository (``platforms/``, ``kernels/``), where centres read,
edit and contribute them. A wheel carries them inside the package as ``jubex/_shipped/``
(``setup.py`` copies them there when it builds); an editable install or a checkout on
``PYTHONPATH`` reads them from beside the package.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def shipped(name: str) -> Path:
    """The directory of the shipped ``platforms`` or ``kernels``, installed or checked out."""
    installed = PACKAGE / "_shipped" / name
    return installed if installed.is_dir() else PACKAGE.parent / name
