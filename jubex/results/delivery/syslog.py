"""Result tables sent to a syslog daemon (JUBE's ``<syslog>`` result), one line per row.

A line is ``name=value`` for each column, separated by blanks, the value formatted as the
table shows it (empty when missing), logged at level INFO with facility USER through
:class:`logging.handlers.SysLogHandler` in the target's ``format``, as JUBE logs it.
"""

from __future__ import annotations

import logging
import logging.handlers

from jubex.definition.model import Syslog
from jubex.errors import JubexError
from jubex.results.tables.cells import format_value
from jubex.results.tables.table import ResultTable


class _Handler(logging.handlers.SysLogHandler):
    """A handler that lets a failed send raise, instead of printing it and going on."""

    def handleError(self, record: logging.LogRecord) -> None:
        raise  # emit calls this inside its except clause: the send error itself


def lines(table: ResultTable) -> list[str]:
    """Each row as JUBE logs it: ``name=value`` per column."""
    return [
        " ".join(
            f"{h.name}={format_value(v, h.format, '')}"
            for h, v in zip(table.headers, row, strict=True)
        )
        for row in table.rows
    ]


def where(target: Syslog) -> str:
    """The daemon, as a message names it."""
    return target.address or f"{target.host}:{target.port}"


def send(table: ResultTable, target: Syslog) -> int:
    """Log every row of ``table`` to the daemon; the number of lines sent."""
    address = target.address or (target.host or "localhost", target.port)
    sent = lines(table)
    try:
        formatter = logging.Formatter(fmt=target.format)
    except ValueError as exc:
        raise _bad_format(table, target, exc) from None
    try:
        handler = _Handler(address=address, facility=logging.handlers.SysLogHandler.LOG_USER)
    except OSError as exc:
        raise _unreachable(table, target, exc) from None
    handler.setFormatter(formatter)
    logger = logging.Logger(f"jubex.syslog.{table.name}", logging.INFO)
    logger.addHandler(handler)
    try:
        for line in sent:
            logger.info(line)
    except OSError as exc:
        raise _unreachable(table, target, exc) from None
    except (ValueError, KeyError) as exc:
        raise _bad_format(table, target, exc) from None
    finally:
        handler.close()
    return len(sent)


def _unreachable(table: ResultTable, target: Syslog, exc: OSError) -> JubexError:
    return JubexError(
        f"cannot send table '{table.name}' to the syslog daemon {where(target)}: "
        f"{exc.strerror or exc}"
    )


def _bad_format(table: ResultTable, target: Syslog, exc: Exception) -> JubexError:
    return JubexError(
        f"table '{table.name}': the syslog format '{target.format}' does not format a line ({exc})",
        hint="use logging's fields, e.g. jube[%(process)s]: %(message)s",
    )
