"""jubex: a declarative benchmark workflow environment for HPC.

Importing the package does nothing but define names; every stage is a subpackage
(definition, space, platform, workdir, schedulers, engine, analysis, results).
"""

__version__ = "0.1.0"
