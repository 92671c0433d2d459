"""The site's own stylesheet and script, and the charting library copied beside them.

Charts are drawn in the browser by BokehJS, from the page's own JSON. Its scripts come
from the ``bokeh`` Python package (``pip install 'jubex[dashboard]'``), which ships them,
and are copied into the site: no page asks a CDN or any other server for anything.
"""

from __future__ import annotations

from importlib import resources

from jubex.errors import UsageError

HINT = "pip install 'jubex[dashboard]' (bokeh draws the charts), or build with --no-charts"
#: BokehJS, minified: the chart is built from its models (site.js), so neither its plotting
#: API (bokeh-api.min.js) nor its widgets, tables or WebGL bundles are fetched
CHART_SCRIPTS = ("bokeh.min.js",)


def own(name: str) -> bytes:
    """``site.css`` or ``site.js``, as the package ships them."""
    return resources.files("jubex.dashboard").joinpath("static").joinpath(name).read_bytes()


def chart_scripts() -> dict[str, bytes]:
    """BokehJS's scripts by name, as the installed bokeh package ships them; their absence
    is said clearly. bokeh is not imported: only its files are read."""
    try:
        shipped = resources.files("bokeh") / "server" / "static" / "js"
    except ModuleNotFoundError:
        raise UsageError("the site's charts need the Python package bokeh", hint=HINT) from None
    scripts = {}
    for name in CHART_SCRIPTS:
        path = shipped / name
        if not path.is_file():
            raise UsageError(f"bokeh is installed but its script {path} is missing", hint=HINT)
        scripts[name] = path.read_bytes()
    return scripts
