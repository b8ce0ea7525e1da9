"""A small modal asking for a file path (open a tokenizer, save one), returning a ``Path`` or ``None``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class PathDialog(ModalScreen[Path | None]):
    """Ask for a path; Enter accepts, Escape cancels. Checks the path before closing, and says why not."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self, title: str | Content, default: str, action: str, *, must_exist: bool = True, names: Sequence[str] = ()
    ) -> None:
        """Args:
        title: what is being asked ("Save the tokenizer as"); Content when it holds a name from data.
        default: the path filled in to start with.
        action: the label of the accept button ("Open", "Save").
        must_exist: the file must exist (opening); otherwise its folder must (saving).
        names: words accepted as they are, not as paths (reference tokenizers such as ``cl100k_base``).
        """
        super().__init__()
        self._title = title
        self._default = default
        self._action = action
        self._must_exist = must_exist
        self._names = tuple(names)

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog"):
            yield Label(self._title, id="path-title", markup=False)
            yield Input(value=self._default, id="path-input", select_on_focus=False)
            yield Static("", id="path-error")
            with Horizontal(id="path-buttons"):
                yield Button(self._action, variant="primary", id="path-accept", compact=True)
                yield Button("Cancel", id="path-cancel", compact=True)

    def _problem(self, path: Path) -> str | None:
        if not str(path).strip():
            return "Type a path."
        if self._must_exist and not path.exists():
            return f"{path}: no such file"
        if not self._must_exist:
            if path.is_dir():
                return f"{path}: is a directory; add a file name"
            if not path.parent.is_dir():
                return f"{path.parent}: no such folder"
        return None

    @on(Input.Submitted)
    @on(Button.Pressed, "#path-accept")
    def accept(self) -> None:
        value = self.query_one("#path-input", Input).value.strip()
        if value in self._names:
            self.dismiss(Path(value))
            return
        path = Path(value).expanduser()
        try:
            problem = self._problem(path)
        except OSError as error:  # e.g. a name too long for the file system
            problem = f"{path}: {error.strerror or error}"
        if problem is not None:
            self.query_one("#path-error", Static).update(Content(problem))
            return
        self.dismiss(path)

    @on(Button.Pressed, "#path-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
