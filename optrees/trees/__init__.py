"""Exact binary classification trees, by role: the problem (:mod:`.problem`), the searches
(:mod:`.search`), the MIPs (:mod:`.mip`) and the orchestration of a fit (:mod:`.solve`)."""
