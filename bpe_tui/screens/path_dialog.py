"""A small modal asking for a file path (open a tokenizer, save one), returning a ``Path`` or ``None``.

Saving never replaces a file unasked: a path that exists is accepted only by a second Enter on the same
path, after the dialog has said so (editing the path takes the question back). A path among ``protected``
(what the thing being saved was made from, such as its corpus) is refused outright, asked or not.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from bpe_tui.text import shown_text


class PathDialog(ModalScreen[Path | None]):
    """Ask for a path; Enter accepts, Escape cancels. Checks the path before closing, and says why not."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str | Content,
        default: str,
        action: str,
        *,
        must_exist: bool = True,
        protected: Sequence[Path] = (),
        names: Sequence[str] = (),
    ) -> None:
        """Args:
        title: what is being asked ("Save the tokenizer as"); Content when it holds a name from data.
        default: the path filled in to start with.
        action: the label of the accept button ("Open", "Save").
        must_exist: the file must exist (opening); otherwise its folder must (saving).
        names: words accepted as they are, not as paths (reference tokenizers such as ``cl100k_base``).
        must_exist: the file must exist (opening); otherwise its folder must (saving), and an existing
            file is replaced only once the user has confirmed it.
        protected: files that must never be written (the inputs of what is saved), even when confirmed.
        """
        super().__init__()
        self._title = title
        self._default = default
        self._action = action
        self._must_exist = must_exist
        self._names = tuple(names)
        self._protected = tuple(protected)
        self._confirmed: Path | None = None
        """The existing file the user was asked about; a second accept of this same path replaces it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog"):
            yield Label(self._title, id="path-title", markup=False)
            yield Input(value=self._default, id="path-input", select_on_focus=False)
            yield Static("", id="path-error", markup=False)
            with Horizontal(id="path-buttons"):
                yield Button(self._action, variant="primary", id="path-accept", compact=True)
                yield Button("Cancel", id="path-cancel", compact=True)

    def _problem(self, path: Path) -> str | None:
        if not str(path).strip():
            return "Type a path."
        if self._must_exist and not path.exists():
            return f"{shown_text(path)}: no such file"
        if not self._must_exist:
            if path.is_dir():
                return f"{shown_text(path)}: is a directory; add a file name"
            if not path.parent.is_dir():
                return f"{shown_text(path.parent)}: no such folder"
            if not os.access(path.parent, os.W_OK | os.X_OK):  # said here, the typed path is kept to edit
                return f"{shown_text(path.parent)}: you may not write in this folder; choose another"
            if path.exists() or path.is_symlink():
                return self._overwrite_problem(path)
        return None

    def _overwrite_problem(self, path: Path) -> str | None:
        """Why an existing ``path`` cannot be replaced yet (or at all), or None once the user has confirmed."""
        shown = shown_text(path)
        if not path.is_file():
            return f"{shown}: exists and is not a regular file; choose another name"
        for source in self._protected:
            try:
                if os.path.samefile(path, source):
                    return f"{shown}: is what this was made from, and is never replaced; choose another name"
            except OSError:
                continue
        if self._confirmed == path:
            return None
        self._confirmed = path
        self.query_one("#path-accept", Button).label = "Replace"
        return f"{shown} exists. Enter again replaces it; edit the name to keep it, esc cancels."

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

    @on(Input.Changed)
    def _path_edited(self) -> None:
        """A changed path takes back the question about the old one, and any message about it ("no such file"
        stayed under the path being typed to fix it)."""
        if self._confirmed is not None:
            self._confirmed = None
            self.query_one("#path-accept", Button).label = self._action
        self.query_one("#path-error", Static).update("")

    @on(Button.Pressed, "#path-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
