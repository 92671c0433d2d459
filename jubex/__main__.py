"""``python -m jubex``."""

import sys


def _main() -> int:
    from jubex.collector import one_command, paused

    one_command()
    with paused(kept=True):  # while the command line's own modules are imported
        from jubex.cli.main import main
    return main()


if sys.argv[1:] == ["--version"]:  # answered before the parser and its commands are imported
    from jubex.version import __version__

    print(f"jubex {__version__}")
    raise SystemExit(0)

raise SystemExit(_main())
