"""Orchestration: a tree estimator's fit (:mod:`.fit`) asks :mod:`.engines` which engine takes
its problem and runs it: the numeric search (:mod:`.numeric`), or the 0/1 search then the MIP
(:mod:`.binary`); other objectives on their view (:mod:`.views`), feature costs by their
search (:mod:`.feature_costs`), BinOCT over raw thresholds (:mod:`.raw_binoct`)."""
