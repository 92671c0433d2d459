"""The language every stage speaks: typed values, ranges, safe expressions, ``$name`` templates."""
