"""Named estimator variants for ablations: the one table of each.

:data:`ACCEL_VARIANTS`: BendersOCT switch sets of the accelerated protocol and of
``bench/accel_bendoct.py`` ([BendOCT] §5-6); :data:`CUT_VARIANTS`: the optional cuts of
FlowOCT and BendersOCT (``bench/ablation_cuts.py``).
"""

from __future__ import annotations

from typing import Any

from .._validation import OptreesInputError
from ..registry import PLAIN_BENDERS
from ..trees.mip.accel.eqp import H_VARIANTS

_EQP = "recursive_da-group"  # [BendOCT] §5.3: recursive, disaggregated H (21), group selection

_SWITCHES: dict[str, dict[str, Any]] = {
    # [BendOCT] §6 ablation: EC strengthened cuts (§5.1), SP polishing (§5.2), EQP inequalities
    # (§5.3), PBCP path-bound cutting planes (§5.4, with both improvements (25)-(26) as in the
    # paper's configurations); SB split-bound cuts (our extension, accel.split_bound);
    # "default" = BendOCTClassifier's defaults (the exact subtree search first, then the MIP),
    # "default-mip" the same without the search
    "bendoct": {},
    "default": {"polishing": True, "path_bound_cuts": "both", "split_bound_cuts": True,
                "subtree_search": True},
    "default-mip": {"polishing": True, "path_bound_cuts": "both", "split_bound_cuts": True},
    "search": {"subtree_search": True},
    "default-sb": {"polishing": True, "path_bound_cuts": "both"},
    "+sb": {"split_bound_cuts": True},
    "+ec": {"strengthened_cuts": True},
    "+sp": {"polishing": True},
    "+eqp": {"eqp": _EQP},
    "+pbcp": {"path_bound_cuts": "both"},
    "all": {"strengthened_cuts": True, "polishing": True, "eqp": _EQP,
            "path_bound_cuts": "both"},
    "all-ec": {"polishing": True, "eqp": _EQP, "path_bound_cuts": "both"},
    "all-sp": {"strengthened_cuts": True, "eqp": _EQP, "path_bound_cuts": "both"},
    "all-eqp": {"strengthened_cuts": True, "polishing": True, "path_bound_cuts": "both"},
    "all-pbcp": {"strengthened_cuts": True, "polishing": True, "eqp": _EQP},
    # path-bound cuts (24) without the improvements (25)-(26)
    "pathbound": {"path_bound_cuts": True},
    "pb-basic": {"polishing": True, "path_bound_cuts": True},
    "accel": {"polishing": True, "path_bound_cuts": True, "eqp": _EQP},
    "accel+sc": {"polishing": True, "path_bound_cuts": True, "eqp": _EQP,
                 "strengthened_cuts": True},
    # EQP alone with each H of §5.3 (App. B.4.1) and group selection (22)
    **{f"eqp-{h}": {"eqp": f"{h}-group"} for h in H_VARIANTS},
}

ACCEL_ALIASES: dict[str, str] = {
    "base": "bendoct", "polish": "+sp", "strengthened": "+ec", "eqp": "+eqp",
    "pb-both": "default-sb", "pb-both+eqp": "all-ec", "splitbound": "+sb",
}
"""Names ``bench/accel_bendoct.py`` gives to variants of the table."""

ACCEL_VARIANTS: dict[str, dict[str, Any]] = {
    **{name: {**PLAIN_BENDERS, **on} for name, on in _SWITCHES.items()},
    **{alias: {**PLAIN_BENDERS, **_SWITCHES[name]} for alias, name in ACCEL_ALIASES.items()},
}
"""Variant name -> BendersOCTClassifier switches (every technique named, all others off)."""

ACCEL_ABLATION = ("bendoct", "default", "default-sb", "+sb", "+ec", "+sp", "+eqp", "+pbcp",
                  "all", "all-ec", "all-sp", "all-eqp", "all-pbcp")
"""The accelerated protocol's variants ([BendOCT] §6 ablation plus split-bound cuts)."""

ACCEL_SCRIPT = ("base", "polish", "pathbound", "strengthened", "eqp", "accel", "accel+sc",
                "pb-basic", "pb-both", "pb-both+eqp", "splitbound", "default-mip", "default")
"""The variants ``bench/accel_bendoct.py`` runs by default."""

CUT_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "flow": ("flow", {}),
    "flow+cuts4": ("flow", {"strengthen": True}),  # [FlowOCT] §2.2.3 cuts (4)
    "benders": ("benders-plain", {}),
    "benders+fractional": ("benders-plain", {"fractional_cuts": True}),
}
"""Cut ablation: variant name -> (method of the registry, estimator switches)."""


def accel_switches(variant: str) -> dict[str, Any]:
    """The switches of BendOCT ``variant`` (:data:`ACCEL_VARIANTS`)."""
    if variant not in ACCEL_VARIANTS:
        raise OptreesInputError(f"unknown variant {variant!r}; choose from "
                                f"{', '.join(ACCEL_VARIANTS)}")
    return dict(ACCEL_VARIANTS[variant])
