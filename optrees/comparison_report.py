"""The HTML report of :func:`optrees.compare`: one self-contained file (pictures as inline
PNG data URIs, no script, no external URL) with the data summary, the table, the test score
against size of every method and each fitted model's picture and text."""

from __future__ import annotations

import base64
import html
import io
import math
from typing import Any

import numpy as np
import pandas as pd

from .comparison import final_model

STYLE = """body{font-family:sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
pre{background:#f4f4f4;padding:.5em;overflow-x:auto}img{max-width:100%}
.picture{overflow-x:auto}.picture img{max-width:none}"""
"""Model pictures keep their size and scroll sideways: a wide tree shrunk to the page's
width has unreadable text."""
MAX_TEXT_LINES = 60
"""Lines of a model's text shown (a deep CART has hundreds)."""


def png_uri(fig: Any) -> str:
    """A matplotlib figure as a PNG data URI (the figure is closed)."""
    from .export.draw import pyplot

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, bbox_inches="tight",
                metadata={"Software": None})  # matplotlib's default names its web site
    pyplot().close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def score_size_figure(table: pd.DataFrame) -> Any:
    """Test score (with its standard error) against size, one labelled point per method."""
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    from .export.draw import pyplot

    fig, ax = pyplot().subplots(figsize=(6.5, 4))
    done = table[table["test_score"].notna()]
    ax.errorbar(done["size"], done["test_score"], yerr=done["test_se"], fmt="o", capsize=3)
    for (size, score), group in done.groupby(["size", "test_score"]):  # one label a point
        ax.annotate(", ".join(group["method"]), (size, score), textcoords="offset points",
                    xytext=(5, 5), fontsize=8)
    ax.margins(x=0.08, y=0.12)  # room for the labels of the top and right points
    ax.set_xscale("log")
    ax.set_xticks(spaced_ticks(done["size"]))  # sizes present, labelled as numbers
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("size (leaves or rules, log scale)")
    ax.set_ylabel(f"test {table.attrs['metric']} ± SE")
    ax.grid(alpha=0.3)
    return fig


def spaced_ticks(sizes: Any, ratio: float = 1.25) -> list[float]:
    """The sizes present, smallest first, each at least ``ratio`` times the previous tick
    (on a log axis, closer labels print over each other: 16 and 17 read "1617")."""
    ticks: list[float] = []
    for size in sorted(set(float(v) for v in sizes)):
        if not ticks or size >= ratio * ticks[-1]:
            ticks.append(size)
    return ticks


def model_picture_text(model: Any) -> tuple[Any, str]:
    """(figure, text) of a fitted model of the table: CART through scikit-learn, the
    others through their own ``plot`` and ``export_text``."""
    fitted = final_model(model)
    if hasattr(fitted, "get_n_leaves"):  # CART: the search behind its encoder
        from sklearn.tree import export_text, plot_tree

        from .export.draw import pyplot

        names = [str(n) for n in model[0].get_feature_names_out()]
        fig, ax = pyplot().subplots(figsize=(10, 5))
        plot_tree(fitted, feature_names=names, filled=True, ax=ax, max_depth=4, fontsize=6)
        return fig, export_text(fitted, feature_names=names)
    return fitted.plot(), fitted.export_text()


def data_summary(X: pd.DataFrame, y: pd.Series, table: pd.DataFrame) -> str:
    """The data: rows, columns by kind, the target's classes or range, the split."""
    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])
               and not pd.api.types.is_bool_dtype(X[c])]
    other = [c for c in X.columns if c not in numeric]
    if table.attrs["task"] == "classification":
        counts = y.value_counts()
        target = ", ".join(f"{k}: {v}" for k, v in counts.head(20).items())
        target = f"{len(counts)} classes ({target})"
    else:
        v = y.to_numpy(dtype=float)
        target = f"numbers from {v.min():g} to {v.max():g}, mean {v.mean():g}, " \
                 f"standard deviation {v.std():g}"
    items = [f"{len(X)} rows, {X.shape[1]} feature columns: {len(numeric)} numeric, "
             f"{len(other)} categorical or boolean",
             f"target: {target}",
             f"test rows: {len(table.attrs['test_rows'])} held out; budget "
             f"{table.attrs['time_budget']:g}s, the comparison took "
             f"{table.attrs['seconds']:.1f}s"]
    if table.attrs.get("note"):
        items.append(f"note: {table.attrs['note']}")
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def _cell(value: Any, column: str = "") -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.2%}" if column == "gap" else f"{value:.4g}"
    return str(value)


def table_html(table: pd.DataFrame) -> str:
    """The table without its models, every cell escaped."""
    shown = table.drop(columns="model")
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(v, c))}</td>"
                                    for c, v in zip(shown.columns, row, strict=True))
                   + "</tr>" for row in shown.itertuples(index=False))
    return f"<table><tr>{head}</tr>{body}</table>"


def report_html(table: pd.DataFrame, X: pd.DataFrame, y: Any, title: str = "optrees compare"
                ) -> str:
    """The whole report as one HTML string."""
    y = pd.Series(np.asarray(y))
    parts = [f"<h1>{html.escape(title)}</h1>", "<h2>Data</h2>", data_summary(X, y, table),
             "<h2>Methods</h2>", table_html(table),
             "<h2>Test score against size</h2>",
             f'<img alt="test score against size" src="{png_uri(score_size_figure(table))}">',
             "<h2>Models</h2>"]
    for r in table.itertuples():
        parts.append(f'<h3 id="model-{html.escape(r.method)}">{html.escape(r.method)}</h3>')
        if r.model is None:
            parts.append(f"<p>{html.escape(r.note)}</p>")
            continue
        fig, text = model_picture_text(r.model)
        lines = text.splitlines()
        more = f"\n... ({len(lines) - MAX_TEXT_LINES} more lines)" \
            if len(lines) > MAX_TEXT_LINES else ""
        parts += [f'<div class="picture"><img alt="{html.escape(r.method)} model" '
                  f'src="{png_uri(fig)}"></div>',
                  f"<pre>{html.escape(chr(10).join(lines[:MAX_TEXT_LINES]) + more)}</pre>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")
