"""``python -m jubex``."""

from jubex.cli.main import main

raise SystemExit(main())
