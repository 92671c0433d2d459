"""The site's own stylesheet and script, and the charting library copied beside them.

Charts are drawn in the browser by plotly.js, from the page's own JSON. Its script comes
from the ``plotly`` Python package (``pip install 'jubex[dashboard]'``), which ships it,
and is copied into the site: no page asks a CDN or any other server for anything.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from jubex.errors import UsageError

HINT = "pip install 'jubex[dashboard]' (plotly draws the charts), or build with --no-charts"


def own(name: str) -> bytes:
    """``site.css`` or ``site.js``, as the package ships them."""
    return resources.files("jubex.dashboard").joinpath("static").joinpath(name).read_bytes()


def plotly_script() -> bytes:
    """plotly.js as the installed plotly package ships it; its absence is said clearly."""
    try:
        import plotly  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise UsageError("the site's charts need the Python package plotly", hint=HINT) from None
    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise UsageError(f"plotly is installed but its script {path} is missing", hint=HINT)
    return path.read_bytes()
