"""Raw table -> what a method consumes, with readable literal names.

``binarize``: :class:`Binarizer` (0/1 features for the tree MIPs); ``common``: helpers shared
by every encoder.  Each method's own encoding of raw columns lives here as well.
"""
