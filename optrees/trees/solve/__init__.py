"""Orchestration: a tree estimator's fit (:mod:`.fit`) chooses the engine for its problem and
runs it: the numeric search (:mod:`.numeric`), or the 0/1 search then the MIP
(:mod:`.binary`); other objectives are solved on their view (:mod:`.views`)."""
