"""MultiwayTree: a tree whose nodes branch on one raw feature, one child per set of values.

Built from the rules (paths) selected by OMT (omt-multiway.txt §3).  The rules partition the
*training* samples; on unseen data a sample may match no rule or several, and rules need not
nest into a tree.  The tree therefore follows the rules exactly and defines the rest:

* a node branches on the feature constrained by the most of its remaining rules (ties: the
  earliest in the feature-graph order, so an attribute hierarchy is respected); its children
  are the groups of values (runs of bins for numeric features) on which every rule agrees;
  a rule that does not test the feature is copied into every child;
* a leaf holds the one rule that matches its region (``rule``);
* several rules match (only possible where no training sample lies): the rule with the most
  training samples wins;
* no rule matches (a region without training samples, or a category never seen in training):
  the prediction is the majority class (regression: mean) of the training samples that reach
  the node, or of its nearest ancestor that has training samples.

So every training sample reaches the leaf of the rule that covers it, and the tree's training
predictions equal the rule set's.  When the rules nest, every leaf path tests exactly its
rule's features; otherwise some leaf paths also test features of other rules (``n_copies``).

(Over 400 lines: building the tree from a rule set, prediction, text, picture description
and serialization of one model kind.)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._numbers import value_digits
from .._validation import OptreesInputError
from ..encoding.common import plain
from . import _schema as schema
from .level import Level
from .multiway_merge import Nodes, merged


class MultiwayTree:
    """Nodes: ``feature[n]`` (index into ``levels``, -1 at leaves), ``children[n]`` as a list of
    (codes, child) pairs, ``value[n]`` (class index or regression value), ``counts[n]``
    (training class counts; regression: [n, mean]), ``rule[n]`` (index into ``rules``, -1 for
    none).  ``levels`` encode raw columns into codes; categorical code ``n_codes`` = unseen."""

    def __init__(self, levels: list[Level], feature: Sequence[int],
                 children: Sequence[Sequence[tuple[Sequence[int], int]]],
                 value: Sequence[float], counts: Sequence[Sequence[float]],
                 rule: Sequence[int], rules: list[dict[str, Any]], classes: Sequence[Any] | None,
                 n_copies: int = 0, weighted: bool = False) -> None:
        self.levels = levels
        self.feature = np.asarray(feature, dtype=np.int64)
        self.children = [[(sorted(int(c) for c in codes), int(ch)) for codes, ch in kids]
                         for kids in children]
        self.value = np.asarray(value, dtype=float)
        self.counts = [list(map(float, c)) for c in counts]
        self.rule = np.asarray(rule, dtype=np.int64)
        self.rules = rules
        self.classes = None if classes is None else np.asarray(classes)
        self.n_copies = int(n_copies)
        self.weighted = bool(weighted)  # counts are sample weights, not rows
        self._tables = None

    # ----------------------------------------------------------------- structure
    @property
    def is_classifier(self) -> bool:
        """True for a classification tree (it has ``classes``), False for regression."""
        return self.classes is not None

    @property
    def n_nodes(self) -> int:
        """Number of nodes, leaves included."""
        return len(self.feature)

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int(np.sum(self.feature < 0))

    @property
    def n_model_leaves(self) -> int:
        """Number of the model's own leaves, the rules (and the fallback) that training rows
        reach; :attr:`n_leaves` counts the printed leaves, which repeat a rule in every branch of
        the tests of the other rules it does not make."""
        held = [int(r) for f, r, c in zip(self.feature, self.rule, self.counts, strict=True)
                if f < 0 and (sum(c) if self.is_classifier else c[0]) > 0]
        return len(set(held))

    @property
    def depth(self) -> int:
        """Length of the longest root-to-leaf path (a single leaf has depth 0)."""
        d = np.zeros(self.n_nodes, dtype=int)
        for n in range(self.n_nodes):  # children have larger ids
            for _, ch in self.children[n]:
                d[ch] = d[n] + 1
        return int(d.max())

    # ----------------------------------------------------------------- prediction
    def encode(self, X: pd.DataFrame) -> np.ndarray:
        """Raw table -> codes per level; unseen categories -> n_codes (the 'other' code)."""
        cols = []
        for lv in self.levels:
            c = lv.encode(X[lv.name]).astype(np.int64)
            c[c < 0] = lv.n_codes
            cols.append(c)
        return np.stack(cols, axis=1) if cols else np.zeros((len(X), 0), dtype=np.int64)

    def _child_tables(self) -> list[np.ndarray | None]:
        if self._tables is None:
            tabs: list[np.ndarray | None] = []
            for n in range(self.n_nodes):
                f = self.feature[n]
                if f < 0:
                    tabs.append(None)
                    continue
                t = np.full(self.levels[f].n_codes + 1, n, dtype=np.int64)
                for codes, ch in self.children[n]:
                    t[codes] = ch
                tabs.append(t)
            self._tables = tabs
        return self._tables

    def apply_codes(self, codes: np.ndarray) -> np.ndarray:
        """Node reached by each row of ``codes`` (a leaf, or the node with no matching child)."""
        tabs = self._child_tables()
        node = np.zeros(len(codes), dtype=np.int64)
        active = np.ones(len(codes), dtype=bool)
        while active.any():
            moved = np.zeros(len(codes), dtype=bool)
            for n in np.unique(node[active]):
                f = self.feature[n]
                if f < 0:
                    continue
                rows = np.flatnonzero(active & (node == n))
                nxt = tabs[n][codes[rows, f]]
                moved[rows] = nxt != n
                node[rows] = nxt
            active &= moved
        return node

    def apply(self, X: pd.DataFrame) -> np.ndarray:
        """Node reached by each row of the raw table ``X`` (see :meth:`apply_codes`)."""
        return self.apply_codes(self.encode(X))

    def predict_index(self, X: pd.DataFrame) -> np.ndarray:
        """Predicted class index (0..K-1) of each row of ``X``."""
        return self.value[self.apply(X)].astype(np.int64)

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Predicted label (classification) or value (regression) of each row of ``X``."""
        v = self.value[self.apply(X)]
        return self.classes[v.astype(np.int64)] if self.is_classifier else v

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Training class frequencies at the reached node (no training samples: its label)."""
        if not self.is_classifier:
            raise ValueError("predict_proba needs a classification tree")
        K = len(self.classes)
        P = np.zeros((self.n_nodes, K))
        for n in range(self.n_nodes):
            c = np.asarray(self.counts[n])
            if c.sum() > 0:
                P[n] = c / c.sum()
            else:
                P[n, int(self.value[n])] = 1.0
        return P[self.apply(X)]

    # ----------------------------------------------------------------- text
    def _cond(self, f: int, codes: list[int]) -> str:
        lv = self.levels[f]
        seen = [c for c in codes if c < lv.n_codes]
        text = lv.codes_text(seen) if seen else ""
        if lv.kind == "categorical" and lv.n_codes in codes:
            text = (text + " or " if text else "") + f"{lv.name} unseen"
        return text

    def _leaf_text(self, n: int) -> str:
        v = self.value[n]
        lab = (f"class: {self.classes[int(v)]}" if self.is_classifier
               else f"value: {v:.{value_digits(self.value[self.feature < 0], 6)}g}")
        r = int(self.rule[n])
        tag = f"rule {r}" if r >= 0 else "no rule (fallback)"
        c = self.counts[n]
        total = float(sum(c)) if self.is_classifier else float(c[0])
        if self.weighted:  # a weight is no count of rows
            return f"{lab}  [{tag}, training weight {total:.6g}]"
        return f"{lab}  [{tag}, {int(total)} training samples]"

    def export_text(self) -> str:
        """Readable indented text: one line per child test, each leaf with its prediction."""
        lines: list[str] = []

        def walk(n: int, indent: str) -> None:
            if self.feature[n] < 0:
                lines.append(f"{indent}|--- {self._leaf_text(n)}")
                return
            for codes, ch in self.children[n]:
                lines.append(f"{indent}|--- {self._cond(int(self.feature[n]), codes)}")
                walk(ch, indent + "|   ")

        if self.feature[0] < 0:
            lines.append(f"|--- {self._leaf_text(0)}")
        else:
            walk(0, "")
        return "\n".join(lines)

    def _plot_nodes(self, feature_names: Any = None) -> Any:
        """Picture description for :mod:`optrees.export` (one edge per value set)."""
        from ..export import Node, Prediction

        def build(n: int) -> Node:
            if self.feature[n] < 0:
                label, _, info = self._leaf_text(n).partition("  [")
                return Node([label, "[" + info] if info else [label], leaf=True,
                            prediction=Prediction.of(self.classes, self.value[n], self.counts[n]))
            f = int(self.feature[n])
            kids = [(self._cond(f, codes), build(ch)) for codes, ch in self.children[n]]
            return Node([f"split on {self.levels[f].name}"], leaf=False, children=kids)

        return build(0)

    def plot(self, **kwargs: Any) -> Any:
        """matplotlib Figure of the tree (see :func:`optrees.export.plot_tree`)."""
        from ..export import plot_tree

        return plot_tree(self, **kwargs)

    def to_dot(self) -> str:
        """Graphviz DOT source of the tree (see :func:`optrees.export.to_dot`)."""
        from ..export import to_dot

        return to_dot(self)

    def __repr__(self) -> str:
        return (f"MultiwayTree(depth={self.depth}, leaves={self.n_leaves}, "
                f"rules={len(self.rules)})")

    # ----------------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready description of the tree (read back by :meth:`from_dict`)."""
        return {
            "kind": "multiway_tree",
            "levels": [lv.to_dict() for lv in self.levels],
            "feature": self.feature.tolist(),
            "children": [[[codes, ch] for codes, ch in kids] for kids in self.children],
            "value": self.value.tolist(),
            "counts": self.counts,
            "rule": self.rule.tolist(),
            "rules": self.rules,
            "classes": None if self.classes is None else [plain(c) for c in self.classes],
            "n_copies": self.n_copies,
            "weighted": self.weighted,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MultiwayTree:
        """The tree described by :meth:`to_dict`, checked first: a damaged or hand-edited
        description (a cycle, a child or code out of range, a level that is no level, ...)
        raises one OptreesInputError naming the problem."""
        if not isinstance(data, dict) or data.get("kind") != "multiway_tree":
            kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
            raise OptreesInputError(f"not a multiway tree model (kind={kind!r})")
        levels = [_checked_level(d, f"'levels'[{i}]")
                  for i, d in enumerate(schema.sequence(data, "levels"))]
        feature = schema.ints(schema.sequence(data, "feature"), "'feature'", -1, len(levels))
        if not feature:
            schema.fail("the tree has no nodes")
        n = len(feature)
        children = _checked_children(schema.sequence(data, "children", n), feature, levels)
        classes = data.get("classes")
        if classes is not None:
            classes = schema.labels(schema.as_list(classes, "'classes'"), "'classes'")
            if not classes:
                schema.fail("'classes' is empty")
        value = schema.reals(schema.sequence(data, "value", n), "'value'")
        if classes is not None and not all(v.is_integer() and 0 <= v < len(classes)
                                           for v in value):
            schema.fail(f"'value' must hold class indices 0..{len(classes) - 1}")
        counts = [schema.reals(schema.as_list(c, f"'counts'[{i}]",
                                              2 if classes is None else len(classes)),
                               f"'counts'[{i}]")
                  for i, c in enumerate(schema.sequence(data, "counts", n))]
        rules = schema.sequence(data, "rules")
        for i, r in enumerate(rules):
            schema.mapping(r, f"'rules'[{i}]")
        rule = schema.ints(schema.sequence(data, "rule", n), "'rule'", -1, len(rules))
        n_copies = schema.integer(data.get("n_copies", 0), "'n_copies'", 0, None)
        weighted = data.get("weighted", False)
        if not isinstance(weighted, bool):
            schema.fail("'weighted' must be true or false")
        return cls(levels, feature, children, value, counts, rule, rules, classes, n_copies,
                   weighted)

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON (atomically: a complete file or none)."""
        from .._files import write_atomic

        write_atomic(path, json.dumps(self.to_dict(), indent=1))

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_rules(cls, levels: list[Level], conditions: list[dict[int, np.ndarray]],
                   predictions: Sequence[float], support: Sequence[float], codes: np.ndarray,
                   target: np.ndarray, classes: Sequence[Any] | None,
                   rules_info: list[dict[str, Any]] | None = None,
                   weights: np.ndarray | None = None) -> MultiwayTree:
        """Tree from rules: ``conditions[r]`` maps a level to the bool mask of its codes;
        ``codes`` / ``target`` (class index or value) are the training data, for counts
        (``weights``: row weights; counts are weights then)."""
        K = None if classes is None else len(classes)
        codes = np.asarray(codes, dtype=np.int64)
        target = np.asarray(target)
        w = np.ones(len(target)) if weights is None else np.asarray(weights, dtype=float)
        feature: list[int] = []
        children: list[list] = []
        value: list[float] = []
        counts: list[list[float]] = []
        rule: list[int] = []
        copies = [0]

        def stats(rows: np.ndarray, parent_value: float) -> tuple[float, list[float]]:
            if K is not None:
                c = np.bincount(target[rows].astype(np.int64), weights=w[rows],
                                minlength=K).astype(float)
                return (float(np.argmax(c)) if c.sum() else parent_value), c.tolist()
            if len(rows) == 0 or w[rows].sum() <= 0:
                return parent_value, [0.0, parent_value]
            m = float(np.average(target[rows], weights=w[rows]))
            return m, [float(w[rows].sum()), m]

        def build(R: list[tuple[int, dict[int, np.ndarray]]], rows: np.ndarray,
                  parent_value: float) -> int:
            n = len(feature)
            fallback, cnt = stats(rows, parent_value)
            feature.append(-1)
            children.append([])
            value.append(fallback)
            counts.append(cnt)
            rule.append(-1)
            open_rules = [(r, c) for r, c in R if c]
            if not open_rules:
                if R:  # several matching rules only where no training sample lies
                    best = max(R, key=lambda rc: (support[rc[0]], -rc[0]))[0]
                    rule[n] = best
                    value[n] = float(predictions[best])
                return n
            tally: dict[int, int] = {}
            for _, c in open_rules:
                for f in c:
                    tally[f] = tally.get(f, 0) + 1
            f = min(tally, key=lambda g: (-tally[g], g))
            lv = levels[f]
            nc = lv.n_codes + (1 if lv.kind == "categorical" else 0)  # + unseen code
            cons = [(r, c) for r, c in R if f in c]
            free = [(r, c) for r, c in R if f not in c]
            if len(free) and len(cons):
                copies[0] += len(free)
            sig = np.zeros((nc, len(cons)), dtype=bool)
            for j, (_, c) in enumerate(cons):
                sig[:lv.n_codes, j] = c[f]
            groups: list[list[int]] = []
            if lv.kind == "numeric":  # runs of equal signature keep intervals readable
                for code in range(nc):
                    if groups and (sig[code] == sig[groups[-1][-1]]).all():
                        groups[-1].append(code)
                    else:
                        groups.append([code])
            else:
                keyed: dict[bytes, list[int]] = {}
                for code in range(nc):
                    keyed.setdefault(sig[code].tobytes(), []).append(code)
                groups = list(keyed.values())
            feature[n] = f
            col = codes[:, f] if len(codes) else np.zeros(0, dtype=np.int64)
            kids = []
            for grp in groups:
                members = [(r, {g: m for g, m in c.items() if g != f})
                           for j, (r, c) in enumerate(cons) if sig[grp[0], j]]
                sub = rows[np.isin(col[rows], grp)]
                ch = build(members + free, sub, fallback)
                kids.append((grp, ch))
            children[n] = kids
            return n

        all_rows = np.arange(len(codes))
        R0 = [(r, {f: np.asarray(m, dtype=bool) for f, m in c.items()})
              for r, c in enumerate(conditions)]
        build(R0, all_rows, 0.0)
        nodes = merged(Nodes(feature, children, value, counts, rule),
                       [lv.kind == "numeric" for lv in levels], K is not None)
        info = rules_info if rules_info is not None else [{} for _ in conditions]
        return cls(levels, nodes.feature, nodes.children, nodes.value, nodes.counts, nodes.rule,
                   info,
                   None if classes is None else list(classes), copies[0], weights is not None)


def _checked_level(d: Any, what: str) -> Level:
    """A level (raw column -> codes) with a name, a known kind, distinct categories and
    sorted finite cut points."""
    d = schema.mapping(d, what)
    if not isinstance(d.get("name"), str):
        schema.fail(f"{what} needs a 'name' string")
    if d.get("kind") not in ("categorical", "numeric"):
        schema.fail(f"{what} has kind {d.get('kind')!r}; expected 'categorical' or 'numeric'")
    categories = schema.labels(schema.as_list(d.get("categories", []), f"{what} categories"),
                               f"{what} categories")
    cuts = schema.reals(schema.as_list(d.get("cuts", []), f"{what} cuts"), f"{what} cuts")
    if any(b < a for a, b in zip(cuts, cuts[1:], strict=False)):
        schema.fail(f"{what} cuts are not sorted")
    if d["kind"] == "categorical" and not categories:
        schema.fail(f"{what} is categorical but has no categories")
    return Level.from_dict({"name": d["name"], "kind": d["kind"], "categories": categories,
                            "cuts": cuts})


def _checked_children(children: list[Any], feature: list[int],
                      levels: list[Level]) -> list[list[tuple[list[int], int]]]:
    """Per node its (codes, child) pairs: none at leaves; at a split, disjoint codes of the
    split level (its unseen code included); together a tree reached once from the root."""
    out = []
    for node, kids in enumerate(children):
        what = f"'children'[{node}]"
        kids = schema.as_list(kids, what)
        f = feature[node]
        if f < 0 and kids:
            schema.fail(f"node {node} is a leaf (feature -1) but has children")
        if f >= 0 and not kids:
            schema.fail(f"node {node} splits on level {f} but has no children")
        pairs: list[tuple[list[int], int]] = []
        used: set[int] = set()
        for j, pair in enumerate(kids):
            codes, child = schema.as_list(pair, f"{what}[{j}]", 2)
            codes = schema.ints(schema.as_list(codes, f"{what}[{j}] codes"),
                                f"{what}[{j}] codes", 0, levels[f].n_codes + 1)
            if used & set(codes):
                schema.fail(f"node {node} sends code {min(used & set(codes))} to two children")
            used |= set(codes)
            pairs.append((codes, child))
        out.append(pairs)
    schema.check_tree([[child for _, child in pairs] for pairs in out])
    return out
