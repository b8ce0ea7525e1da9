"""The Diff view of the compare pane: the structural diff of tokenizers A and B, one finding a line.

The lines are :func:`bpe_tui.diff_report.report_lines`, the same ``bpe-tui diff`` prints, so the app and
the CLI never disagree; here the tie verdict is highlighted, since it is the line that explains why two
tokenizers of one corpus differ.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from bpe_tui.diff_report import report_lines
from core.analysis.diff import StructuralDiff

TIE_STYLE = "bold yellow"
"""As the merge table marks a tie."""


def diff_content(diff: StructuralDiff | None, name_a: str = "", name_b: str = "") -> Content:
    """The view's text for ``diff`` of tokenizers named ``name_a`` and ``name_b``; a hint when there is none."""
    if diff is None:
        return Content.styled("Choose two tokenizers (t, then space) to see where their merges part.", "dim")
    names = Content.assemble(("A ", "bold reverse"), f" {name_a}   ", ("B ", "bold reverse"), f" {name_b}")
    lines = [names, Content("")]
    for line in report_lines(diff):
        verdict = line.lstrip()
        if verdict.startswith(("a tie", "not a tie", "tie unknown")):
            head, _, rest = verdict.partition(" (")
            style = TIE_STYLE if head == "a tie" else "bold"
            lines.append(Content.assemble("  ", (head, style), f" ({rest}" if rest else ""))
        elif line.endswith(":") or not line.startswith(" "):
            label, colon, rest = line.partition(":")
            lines.append(Content.assemble((label + colon, "bold"), rest))
        else:
            lines.append(Content(line))
    return Content("\n").join(lines)


class DiffView(Static):
    """Shows one structural diff; :meth:`show` replaces it."""

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(diff_content(None), id=id, markup=False)

    def show(self, diff: StructuralDiff | None, name_a: str = "", name_b: str = "") -> None:
        """Draw ``diff`` of ``name_a`` against ``name_b`` (``None`` shows the hint)."""
        self.update(diff_content(diff, name_a, name_b))
