"""OMT ([OMT]): optimal multiway-split trees by a path-based set-partitioning MIP and column
generation; :func:`optrees.omt.solve.solve_omt` is the one entry point
(:class:`optrees.omt.solve.OMTProblem` the same for several leaf penalties on one column pool).

Files by role: ``graph`` (feature graph), ``metric`` (rule losses), ``constraints`` (path-level
constraints), ``pricing`` (K-shortest-path pricing), ``pool`` (generated columns), ``master``
(master LP), ``warmstart`` (greedy trees, MIP starts), ``mip`` (master MIP), ``solver``
(column generation for one loss), ``rules`` (losses per task, F1 by Dinkelbach), ``tree``
(the multiway tree) and ``solve``.  Design notes: ``docs/notes/omt-design.md``.
"""
