"""``python -m jubex``."""

import gc
import sys


def _main() -> int:
    gc.disable()  # while the command line's own modules are imported (see main's start-up)
    from jubex.cli.main import main

    gc.enable()
    return main()


if sys.argv[1:] == ["--version"]:  # answered before the parser and its commands are imported
    from jubex.version import __version__

    print(f"jubex {__version__}")
    raise SystemExit(0)

raise SystemExit(_main())
