"""A centre's dashboard: a static website of the results database (``jubex site``).

``collect`` reads what the pages show through the results database's public functions
(the runs a selector names, their samples, ``jubex history``'s change points, the failures,
the annotations); ``pages`` renders one kind of page each, ``feed`` the Atom feed of change
points, ``write`` writes only what changed, ``build`` composes them, ``serve`` shows the
site on the loopback interface. It may import every stage up to ``resultsdb``.
"""
