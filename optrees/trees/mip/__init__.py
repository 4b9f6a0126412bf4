"""The tree MIPs with their rows and cuts: FlowOCT / BendersOCT (:mod:`.flow`,
:mod:`.benders`), OCT and BinOCT (:mod:`.oct`, :mod:`.binoct`), side constraints and fairness
rows, and BendOCT's accelerations (:mod:`.d2s`, :mod:`.accel`)."""
