"""``python -m jubex``."""

import sys

if sys.argv[1:] == ["--version"]:  # answered before the parser and its commands are imported
    from jubex.version import __version__

    print(f"jubex {__version__}")
    raise SystemExit(0)

from jubex.cli.main import main

raise SystemExit(main())
