"""The Atom feed (RFC 4287) of change points, newest first, for a feed reader or a chat bot.

Each entry is one change point of one series; its id is a UUID made from what it is (the
series and the run), so a reader sees a change point once however often the site is built.
"""

from __future__ import annotations

import re
import time
import uuid

from lxml import etree

from jubex.dashboard.model import Dashboard
from jubex.version import __version__

ATOM = "http://www.w3.org/2005/Atom"
#: characters XML 1.0 cannot hold (a run's text may have them): shown as U+FFFD
INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: the newest change points the feed carries
ENTRIES = 200
#: the namespace of the entries' UUIDs
NAMESPACE = uuid.UUID("6f0c54a6-5c2e-4e0c-9d0b-3f0a4f1d9a41")


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def feed(site: Dashboard, base: str = "") -> bytes:
    """The feed; links are relative to ``base`` (the URL the site is published at)."""
    found = [(e.created, s, e) for s in site.series for e in s.entries if e.mark]
    found.sort(key=lambda item: -item[0])
    found = found[:ENTRIES]
    newest = max((r.created for r in site.runs.values()), default=0.0)
    root = etree.Element(f"{{{ATOM}}}feed", nsmap={None: ATOM})
    if base:
        root.set("{http://www.w3.org/XML/1998/namespace}base", base)
    _text(root, "id", f"urn:uuid:{uuid.uuid5(NAMESPACE, 'feed ' + site.selector)}")
    _text(root, "title", "jubex: change points")
    _text(root, "updated", _iso(max([newest, *(c for c, _, _ in found)])))
    author = etree.SubElement(root, f"{{{ATOM}}}author")
    _text(author, "name", "jubex")
    _text(root, "generator", "jubex", version=__version__)
    etree.SubElement(root, f"{{{ATOM}}}link", rel="alternate", href="regressions.html")
    etree.SubElement(root, f"{{{ATOM}}}link", rel="self", href="feed.xml")
    for created, s, e in found:
        run = site.runs[e.run]
        entry = etree.SubElement(root, f"{{{ATOM}}}entry")
        change = "" if e.change is None else f" {e.change:+.1f}%"
        _text(
            entry,
            "id",
            f"urn:uuid:{uuid.uuid5(NAMESPACE, s.page + ' ' + str(run.fields['run_key']))}",
        )
        _text(
            entry,
            "title",
            f"{s.metric} {e.mark}{change}: {s.benchmark} at {s.site}, {s.point_text}",
        )
        _text(entry, "updated", _iso(created))
        etree.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", href=run.page)
        etree.SubElement(entry, f"{{{ATOM}}}link", rel="related", href=s.page)
        _text(
            entry,
            "summary",
            f"Run {run.label} of {s.benchmark} at {s.site} ({s.filesystem}): mean of "
            f"{s.metric} {e.mean:.4g} {s.unit}, {e.mark}{change} against the run before it "
            f"(p adjusted {e.p_adjusted:.3g}).".replace("None", "?")
            if e.mean is not None and e.p_adjusted is not None
            else f"Run {run.label}: {s.metric} {e.mark}{change}",
        )
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)


def _text(parent: etree._Element, name: str, text: str, **attributes: str) -> None:
    element = etree.SubElement(parent, f"{{{ATOM}}}{name}", attrib=attributes)
    element.text = INVALID.sub("\ufffd", text)
