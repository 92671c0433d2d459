"""The feed is Atom as RFC 4287 requires it: checked element by element with lxml."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from lxml import etree

from tests.dashboard.conftest import STEP_RUN

ATOM = "{http://www.w3.org/2005/Atom}"


def one(parent: etree._Element, name: str) -> etree._Element:
    found = parent.findall(f"{ATOM}{name}")
    assert len(found) == 1, f"{parent.tag} holds {len(found)} atom:{name}, RFC 4287 asks one"
    return found[0]


def date_time(element: etree._Element) -> datetime:
    """An RFC 3339 date-time, as atom:updated must hold (section 3.3)."""
    text = element.text or ""
    assert text.endswith("Z") and "T" in text, text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_feed_is_valid_atom_with_the_planted_change(site: Path) -> None:
    feed = etree.parse(str(site / "feed.xml")).getroot()
    assert feed.tag == f"{ATOM}feed"
    # 4.1.1: one id, title, updated; an author (no entry has its own); a self link
    assert one(feed, "id").text.startswith("urn:uuid:")  # type: ignore[union-attr]
    assert one(feed, "title").text
    updated = date_time(one(feed, "updated"))
    assert one(one(feed, "author"), "name").text == "jubex"
    assert {link.get("rel") for link in feed.findall(f"{ATOM}link")} >= {"self", "alternate"}
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 1
    ids = set()
    for entry in entries:  # 4.1.2: one id, title, updated; a summary or content; links
        ids.add(one(entry, "id").text)
        assert "m00 worse" in (one(entry, "title").text or "")
        assert date_time(one(entry, "updated")) <= updated
        assert one(entry, "summary").text and STEP_RUN in (one(entry, "summary").text or "")
        alternate = [x for x in entry.findall(f"{ATOM}link") if x.get("rel") == "alternate"]
        assert len(alternate) == 1
        assert (site / alternate[0].get("href", "")).is_file()  # the run page, as the feed says
    assert len(ids) == len(entries)
