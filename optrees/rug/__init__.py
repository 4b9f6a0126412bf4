"""RUG and FairRUG ([RUG]): a weighted rule set by column generation on a master LP;
:func:`optrees.rug.solve.solve_rug` is the one entry point.

Files by role: ``costs`` (the entries of the master (3) and the reduced cost (5), once),
``master`` (the master LP, its duals and certified bound), ``fairness`` (FairRUG's rows,
§3.5), ``pricing`` (tree pricing, §3.4), ``exact`` (exact pricing of PSP (8) and the lower
bound), ``warmstart`` (the master's warm start over refined cells), ``budget`` (the time of
one HiGHS solve), ``generation`` (the loop of master LPs and pricing rounds) and ``solve``.
RUX: ``ensemble`` (a fitted tree ensemble's leaves as rules) and ``rux`` (their weights from
one solve of the master, :func:`optrees.rug.rux.solve_rux`).
The raw columns the rules test are :class:`optrees.encoding.columns.RawColumns`.
"""
