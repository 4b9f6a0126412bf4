"""Raw table -> what a method consumes, with readable literal names.

``binarize``: :class:`Binarizer` (0/1 features for the tree MIPs); ``columns``: RUG's raw
columns; ``bins``: OMT's bins; ``common``: helpers shared
by every encoder.  Each method's own encoding of raw columns lives here as well.
"""
