"""The multiway tree of a rule selection: the rules' descriptions and a tree that applies them."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.multiway_tree import MultiwayTree
from .rules import RuleSelection


def rule_descriptions(sel: RuleSelection, classes: np.ndarray | None,
                      feature_costs: np.ndarray | None) -> list[dict[str, Any]]:
    """One dict per selected rule: conditions and features in words, prediction (a class
    label or a value), training samples (their weight under sample weights), loss and
    feature-acquisition cost."""
    levels = sel.graph.levels
    res = sel.result
    out = []
    for st, pr, xi, sup in zip(res.steps, res.predictions, res.xi, sel.support, strict=True):
        if classes is None:
            prediction = float(pr)
        else:
            label = classes[int(pr)]
            prediction = label.item() if hasattr(label, "item") else label
        out.append({
            "conditions": [levels[g].node_text(v) for g, v in st],
            "features": [levels[g].name for g, _ in st],
            "prediction": prediction,
            "n_samples": int(sup) if float(sup).is_integer() else float(sup),
            "loss": float(xi),
            "cost": float(sum(feature_costs[g] for g, _ in st))
            if feature_costs is not None else 0.0,
        })
    return out


def assemble_tree(sel: RuleSelection, y: np.ndarray, classes: np.ndarray | None,
                  feature_costs: np.ndarray | None,
                  sample_weight: np.ndarray | None = None) -> MultiwayTree:
    """The :class:`MultiwayTree` of the selected rules (``tree.rules``: their descriptions;
    counts are weights under ``sample_weight``); RuntimeError if it does not send every
    training sample to the rule that covers it."""
    graph, res = sel.graph, sel.result
    tree = MultiwayTree.from_rules(graph.levels, sel.conditions, res.predictions, sel.support,
                                   graph.codes, y, None if classes is None else list(classes),
                                   rule_descriptions(sel, classes, feature_costs),
                                   sample_weight)
    leaf_rule = tree.rule[tree.apply_codes(graph.codes.astype(np.int64))]
    unit_rule = np.full(len(sel.solver.n_count), -1)
    for r, st in enumerate(res.steps):
        unit_rule[sel.solver.pricer.cover(st)] = r
    expected = unit_rule[sel.unit_of_sample]
    if not np.array_equal(leaf_rule[expected >= 0], expected[expected >= 0]):
        raise RuntimeError("OMT internal error: the tree does not reproduce the rules")
    return tree
