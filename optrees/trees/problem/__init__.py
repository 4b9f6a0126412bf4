"""A tree problem as a value: the data view, the objective (:mod:`.objectives`) and the
constraints (min leaf, leaf budget, fairness: :mod:`.fairness`) that every engine asks."""
