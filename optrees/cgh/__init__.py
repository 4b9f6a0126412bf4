"""CGH ([CGH]): classification trees by column generation over decision paths on sampled
thresholds of the raw columns.  Files by role: threshold sampling (``sampling``), decision
paths and row groups (``paths``), pricing (``pricing``), the restricted master (``master``),
the loop (``solve``) and the returned tree (``tree``)."""

from .solve import CGH_DEPTH_WHY, MAX_CGH_DEPTH, CGHSettings, solve_cgh

__all__ = ["CGH_DEPTH_WHY", "MAX_CGH_DEPTH", "CGHSettings", "solve_cgh"]
