"""JUBE's ``<syslog>`` result: a table whose rows ``jubex result`` sends to a syslog daemon.

The daemon is a socket ``address`` (``/dev/log``) or a ``host`` and UDP ``port`` (JUBE's
code sends to 514 when the port is left out; its documentation says 541, a slip), never
both. Each row is one line of ``name=value`` pairs, one per ``<key>``, in ``format``
(JUBE's default ``jube[%(process)s]: %(message)s``).
"""

from __future__ import annotations

from jubex.definition.jube.context import Context
from jubex.definition.jube.nodes import Node, split_list
from jubex.definition.jube.python_mode import Known
from jubex.definition.jube.sets import condition, expanded
from jubex.definition.model import Column, Syslog, Table


def column(ctx: Context, node: Node, owner: str) -> Column:
    """A table's ``<column>`` or a syslog's ``<key>``: a name, with a title and a format."""
    ctx.check(node)
    if not node.value:
        ctx.fail(f"{owner}: a <{node.tag}> is empty", node.loc)
    return Column(node.value, title=node.get("title"), format=node.get("format"), loc=node.loc)


def syslog(ctx: Context, node: Node, known: Known, used: tuple[str, ...]) -> Table:
    ctx.check(node, ("key",))
    name = ctx.required(node, "name")
    address, host = node.get("address"), node.get("host")
    if address and host:
        ctx.fail(
            f"syslog '{name}' names both an address and a host",
            node.loc,
            "give a socket address, or a host and port, not both",
        )
    if not (address or host or node.get("port")):
        ctx.fail(
            f"syslog '{name}' names no syslog daemon",
            node.loc,
            'add address="/dev/log", or host="..." and port="..."',
        )
    columns = [column(ctx, child, f"syslog '{name}'") for child in node.children]
    target = Syslog(
        address=expanded(address) if address else None,
        host=None if address else host or "localhost",
        port=ctx.integer(node, "port", 514),
    )
    if node.get("format"):
        target.format = node.get("format") or target.format
    return Table(
        name,
        columns=columns,
        use=used,
        sort=tuple(split_list(node.get("sort"))),
        filter=condition(node.get("filter"), known) if node.get("filter") else None,
        style="csv",
        syslog=target,
        loc=node.loc,
    )
