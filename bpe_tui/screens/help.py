"""The help screen: every key binding of the app and of each pane, read from the classes' ``BINDINGS``.

Generated rather than written, so it cannot go stale when a binding changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from bpe_tui.panes import PANES


@dataclass(frozen=True)
class KeyHelp:
    """One line of help: the keys (as shown), what they do."""

    keys: str
    description: str


def _key_label(app: App, binding: Binding) -> str:
    """All the keys of a binding as the footer shows them, e.g. ``?/f1``."""
    keys = [key.strip() for key in binding.key.split(",")]
    return "/".join(app.get_key_display(Binding(key, binding.action)) for key in keys)


def bindings_of(node_class: type[DOMNode], *, stop_at: type[DOMNode] | None = None) -> list[Binding]:
    """The bindings ``node_class`` declares itself and inherits from its bases below ``stop_at``.

    Bindings a class inherits from Textual's own base classes (focus cycling, system keys) are left out
    when ``stop_at`` is that base, so the help shows what this app adds.
    """
    found: list[Binding] = []
    seen: set[str] = set()
    for base in node_class.__mro__:
        if stop_at is not None and base is stop_at:
            break
        for item in base.__dict__.get("BINDINGS", []):
            binding = item if isinstance(item, Binding) else Binding(*item)
            if binding.system or binding.key in seen:
                continue
            seen.add(binding.key)
            found.append(binding)
    return found


def help_sections(app: App) -> list[tuple[str, list[KeyHelp]]]:
    """(section title, lines) for the app's global keys and each pane's keys, in pane order."""

    def lines(bindings: Iterable[Binding]) -> list[KeyHelp]:
        out: list[KeyHelp] = []
        for binding in bindings:
            description = binding.description or binding.action.replace("_", " ")
            out.append(KeyHelp(_key_label(app, binding), description))
        return out

    # The app's own keys, then the ones every screen inherits from Textual (focus cycling, copy).
    everywhere = lines(bindings_of(type(app)) + bindings_of(Screen))
    if app.ENABLE_COMMAND_PALETTE:
        everywhere.append(KeyHelp(app.get_key_display(Binding(app.COMMAND_PALETTE_BINDING, "")), "Command palette"))
    sections = [("Everywhere", everywhere)]
    for pane in PANES:
        pane_lines = lines(bindings_of(pane.screen, stop_at=Screen))
        if pane_lines:
            sections.append((f"{pane.key}  {pane.title}", pane_lines))
    return sections


class HelpScreen(ModalScreen[None]):
    """Lists every binding; any of escape, q, ? or F1 closes it."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close help", key_display="esc")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            with VerticalScroll(id="help-body"):
                for title, items in help_sections(self.app):
                    yield Static(Content.styled(title, "bold $readable-accent"), classes="help-title")
                    width = max(len(item.keys) for item in items)
                    body = Content("\n").join(
                        Content.assemble((f"  {item.keys:<{width}}  ", "bold"), item.description) for item in items
                    )
                    yield Static(body, classes="help-section")
            yield Static(Content.styled("esc closes · ctrl+p finds any command", "dim"), id="help-footer")

    def on_mount(self) -> None:
        self.query_one("#help-dialog").border_title = "Keys"
