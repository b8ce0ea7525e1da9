"""A token's merge tree, down to single bytes, as a Textual ``Tree``."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from bpe_tui.text import escape_token
from core.analysis.merge_tree import MergeNode


def node_label(node: MergeNode, *, special: bool = False) -> Text:
    """The label of one tree node: the token made safe, then its id, merge rank and recorded count.

    Built as rich ``Text`` from plain strings (``Tree`` takes ``Text``, and a ``str`` would be parsed as
    markup, which token text must never be).

    >>> node_label(MergeNode(b" the", 262, 5, 1041)).plain
    '·the  #262  merge 5  count 1,041'
    >>> node_label(MergeNode(b"t", 116, None, None)).plain
    't  #116  byte 74'
    """
    label = Text(escape_token(node.token), style="bold")
    details: list[str] = []
    if node.id is not None:
        details.append(f"#{node.id}")
    if special:
        details.append("special")
    elif node.rank is not None:
        details.append(f"merge {node.rank}")
        if node.count is not None:
            details.append(f"count {node.count:,}")
    elif len(node.token) == 1:
        details.append(f"byte {node.token.hex()}")
    else:
        details.append("no merge makes it")
    label.append("  " + "  ".join(details), style="dim")
    return label


class MergeTreeView(Tree[bytes]):
    """Shows how one token was built: each merged token's children are the pair it merged."""

    DEFAULT_CSS = """
    MergeTreeView {
        height: 1fr;
        padding: 0 1;
        overflow-x: hidden;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Text("(no token selected)", style="dim"), name=name, id=id, classes=classes)
        self.show_root = True
        self.guide_depth = 2

    def show_node(self, node: MergeNode, *, special: bool = False) -> None:
        """Replace the tree with ``node``'s, fully expanded."""
        self.clear()
        self.root.set_label(node_label(node, special=special))
        self.root.data = node.token
        self._add_children(self.root, node)
        self.root.expand_all()
        self.move_cursor(self.root, animate=False)

    def show_nothing(self, message: str) -> None:
        """Empty the tree, leaving ``message`` as the root label."""
        self.clear()
        self.root.set_label(Text(message, style="dim"))

    def _add_children(self, parent: TreeNode[bytes], node: MergeNode) -> None:
        for child in node.children:
            branch = parent.add(node_label(child), data=child.token, allow_expand=not child.is_leaf)
            self._add_children(branch, child)
