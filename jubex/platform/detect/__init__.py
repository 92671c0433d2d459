"""``jubex platform detect``: a platform file written from the live scheduler and the machine.

Each scheduler module turns its commands' text into :class:`Detected` partitions; ``write``
renders them as a platform file whose every value not read from the system carries a
``# GUESSED`` comment saying what it rests on.
"""
