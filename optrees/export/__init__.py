"""Text-free exports of fitted models: pictures (matplotlib) and Graphviz DOT.

Every tree kind is drawn through one neutral description (:class:`Node`: box text, children
with edge labels, what a leaf predicts), so a new tree model only needs a ``_plot_nodes``
converter.  Drawing a tree is two steps: :func:`layout_tree` places every box (sized to the
text it holds) in one coordinate system, in points, without matplotlib figures; then
:func:`plot_tree` draws that layout on a figure sized to it.  Leaves are coloured by their
predicted class (one hue per class, a legend), darker the purer the leaf; regression leaves
are darker the larger their value.  The models call this package (``plot``, ``to_dot``); it
never imports them.
"""

from .colours import RGB, class_hue, legend_entries, node_colours, purity_intensity
from .dot import to_dot
from .draw import check_picture_path, plot_rules, plot_tree, pyplot
from .layout import Box, TreeLayout, box_text, layout_tree, measure_text, wrap_line
from .nodes import Node, Prediction, binary_tree_nodes

__all__ = ["RGB", "Box", "Node", "Prediction", "TreeLayout", "binary_tree_nodes", "box_text",
           "check_picture_path", "class_hue", "layout_tree", "legend_entries", "measure_text",
           "node_colours", "plot_rules", "plot_tree", "purity_intensity", "pyplot", "to_dot",
           "wrap_line"]
