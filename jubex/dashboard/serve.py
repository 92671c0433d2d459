"""``jubex site --serve``: the site on the loopback interface, to look at it before publishing.

Only 127.0.0.1 is bound: nobody else on the network sees the site, and a published site is
served by the centre's web server (docs/dashboard.md), not by this.
"""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

HOST = "127.0.0.1"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def server(root: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server of ``root`` on 127.0.0.1 (``port`` 0: any free port; see ``server_address``)."""
    handler = functools.partial(_Quiet, directory=str(root))
    return http.server.ThreadingHTTPServer((HOST, port), handler)
