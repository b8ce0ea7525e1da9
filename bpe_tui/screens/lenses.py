"""Pane 7, lenses: the lessons of tokenisation, each live on the active tokenizer.

A list of lenses on the left (↑/↓ chooses), the chosen lens on the right: its settings, then its view.
←/→ moves the chosen slider (shift for bigger steps), ``[``/``]`` chooses among several settings, space
flips a toggle and ``/`` edits a lens's text (Enter applies it); page up/down scroll the lens's view.

Every lens is computed in a thread worker (some retrain or encode whole samples) that only posts its result.
Only the lens the user is on is computed: a request first waits :attr:`LensesScreen.SETTLE_SECONDS`, and a
newer one (the next lens passed over with ↓, a slider held down) wakes and ends it before it has computed
anything. Work already under way when it is superseded is cancelled and its result dropped, and a result
is drawn only if it answers the latest request, so a stale one never reaches the view. The pane follows the
session's active tokenizer.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Header, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from bpe_tui.lenses.registry import LENSES
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.lenses.views.base import LensView
from bpe_tui.messages import SessionChanged
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.widgets.key_footer import KeyFooter
from core.errors import BPEError

SETTING_KINDS = ("int", "bool")
"""Settings moved with keys (sliders and toggles); ``text`` and ``path`` settings are fields."""


def settings_content(spec: LensSpec, values: dict[str, Any], chosen: int, context: LensContext | None) -> Content:
    """One line per slider or toggle of ``spec``, the chosen one marked, each with its value and range."""
    lines: list[Content] = []
    for index, option in enumerate(o for o in spec.options if o.kind in SETTING_KINDS):
        mark = ("▸ ", "bold $readable-accent") if index == chosen else ("  ", "")
        value = values[option.name]
        if option.kind == "bool":
            shown = Content.assemble(("[x]" if value else "[ ]", "bold"), f" {option.label}")
        else:
            low, high = option.bounds(context)
            top = f"{high:,}" if high is not None else "…"
            shown = Content.assemble(f"{option.label} ", ("◀ ", "dim"), (f"{value:,}", "bold"), (" ▶", "dim"),
                                     (f"  {low:,}–{top}", "dim"))
        lines.append(Content.assemble(mark, shown))
    return Content("\n").join(lines)


class LensesScreen(PaneScreen):
    """Every lens of :data:`bpe_tui.lenses.registry.LENSES`, one at a time, on the active tokenizer."""

    AUTO_FOCUS = "#lens-list"

    DEFAULT_CSS = """
    LensesScreen {
        #lenses-body { height: 1fr; }
        #lens-list { width: 24; height: 1fr; border: round $primary-muted; }
        #lens-list:focus { border: round $primary; }
        #lens-side { width: 1fr; border: round $primary-muted; }
        #lens-about { height: auto; padding: 0 1; }
        #lens-settings { height: auto; padding: 0 1; }
        #lens-fields { height: auto; }
        #lens-fields Input { margin: 0 1; }
    }
    """

    BINDINGS = [
        # Priority bindings: the lens list, a scrolling widget, would otherwise take ←/→ (to scroll) and the
        # footer would show its keys instead. While a field has focus, check_action passes them to it.
        Binding("left", "slide(-1)", "Slide", key_display="←/→", tooltip="Move the chosen slider", priority=True),
        Binding("right", "slide(1)", "Slide", show=False, priority=True),
        Binding("shift+left", "slide(-1, True)", "Slide faster", show=False, priority=True),
        Binding("shift+right", "slide(1, True)", "Slide faster", show=False, priority=True),
        Binding("left_square_bracket", "pick(-1)", "Setting", key_display="[/]",
                tooltip="Choose which slider or toggle the keys move", priority=True),
        Binding("right_square_bracket", "pick(1)", "Setting", show=False, priority=True),
        Binding("space", "toggle", "Toggle", priority=True),
        # "/" focuses the field at once, so keys typed right after it reach it (see Boundaries).
        Binding("slash", "edit", "Edit text", priority=True),
        # ↑/↓ move the list's cursor here, in the app's own turn, not queued behind the list: a "/" typed right
        # after them then finds the cursor already on the lens it is meant for.
        Binding("up", "move_list(-1)", "Lens", show=False, priority=True),
        Binding("down", "move_list(1)", "Lens", show=False, priority=True),
        # The view cannot take focus (↑/↓ belong to the list), so these scroll it; priority, or the list
        # would take them to jump through the lenses.
        Binding("pageup", "scroll_view(-1)", "Scroll", key_display="PgUp/PgDn",
                tooltip="Scroll the lens's view", priority=True),
        Binding("pagedown", "scroll_view(1)", "Scroll", show=False, priority=True),
        Binding("escape", "back", "Lenses", show=False),
    ]

    SETTLE_SECONDS = 0.15
    """How long a request waits before computing, so that lenses passed over (and slider positions held past)
    are never computed: a newer request ends the wait at once. Short enough not to be felt."""

    @dataclass
    class LensComputed(Message, bubble=False):
        """A lens finished: ``result`` for request ``key``."""

        key: int
        result: Any

    @dataclass
    class LensFailed(Message, bubble=False):
        """A lens could not be computed for request ``key``: ``reason`` is one line."""

        key: int
        reason: str

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session
        self._loaded: LoadedTokenizer | None = None
        self._spec: LensSpec = LENSES[0]
        self._given: dict[str, dict[str, Any]] = {}
        """Per lens, the values the user set; the rest are the lens's defaults for the tokenizer."""
        self._chosen: dict[str, int] = {}
        """Per lens, which of its sliders and toggles the keys move."""
        self._request = 0
        self._go = threading.Event()
        """Set to end the latest request's wait: it was superseded, or must start now (:meth:`compute_now`)."""
        self._showing = asyncio.Lock()
        """Held while a lens's fields and view are being replaced, so "/" never focuses a field on its way out."""
        self.last_result: Any = None
        """The latest result shown, ``None`` while there is none (what tests check the pane by)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="lenses-body"):
            yield OptionList(*(Option(spec.title, id=spec.name) for spec in LENSES), id="lens-list")
            with Vertical(id="lens-side"):
                yield Static(id="lens-about")
                yield Static(id="lens-settings")
                yield Vertical(id="lens-fields")
                yield LensView(self._spec, id="lens-view")
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.query_one("#lens-list").border_title = "lenses"
        self._loaded = self._session.active_tokenizer()
        self.query_one("#lens-list", OptionList).highlighted = 0
        async with self._showing:
            await self._replace_lens(LENSES[0], settle=False)

    # -- state -------------------------------------------------------------------------------------------

    @property
    def spec(self) -> LensSpec:
        """The lens on show."""
        return self._spec

    def context(self) -> LensContext | None:
        """The active tokenizer and the samples, or ``None`` before there is a tokenizer."""
        if self._loaded is None:
            return None
        return LensContext(self._loaded, self._session.sample_texts(), self._session.samples_dir)

    def values(self, spec: LensSpec | None = None) -> dict[str, Any]:
        """Every setting of ``spec`` (the lens on show) as it will be computed: the user's, else the default.

        An int the user set that the tokenizer no longer allows (fewer merges) is brought into range.
        """
        spec = spec or self._spec
        context = self.context()
        given = self._given.get(spec.name, {})
        values: dict[str, Any] = {}
        for option in spec.options:
            value = given.get(option.name)
            if value is None:
                value = option.default_for(context, given)
            if option.kind == "int" and value is not None:
                low, high = option.bounds(context)
                value = max(low, value if high is None else min(high, value))
            values[option.name] = value
        return values

    def _settings(self) -> list[LensOption]:
        return [option for option in self._spec.options if option.kind in SETTING_KINDS]

    # -- showing a lens ----------------------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#lens-list")
    async def _lens_highlighted(self, message: OptionList.OptionHighlighted) -> None:
        await self._show_lens(self._highlighted_spec())

    def _highlighted_spec(self) -> LensSpec:
        """The lens the list's cursor is on (it moves before the pane hears of it)."""
        index = self.query_one("#lens-list", OptionList).highlighted
        return LENSES[index] if index is not None else self._spec

    async def _show_lens(self, spec: LensSpec) -> None:
        async with self._showing:
            if spec is not self._spec:
                await self._replace_lens(spec)

    async def _replace_lens(self, spec: LensSpec, *, settle: bool = True) -> None:
        # One batch: the title, settings, fields and view change together, never a new title over the
        # old lens's view.
        with self.app.batch_update():
            self._spec = spec
            values = self.values()
            inputs = [
                Input(value=values[option.name] or "", placeholder=f"{option.label}: {option.hint or option.help}",
                      id=f"lens-field-{option.name}", compact=True)
                for option in spec.options if option.kind in ("text", "path")
            ]
            fields = self.query_one("#lens-fields", Vertical)
            await fields.remove_children()
            if inputs:
                await fields.mount_all(inputs)
            await self.query_one("#lens-view", LensView).remove()
            view_class = spec.view()
            await self.query_one("#lens-side", Vertical).mount(view_class(spec, id="lens-view"))
            self.query_one("#lens-side").border_title = spec.title
            self.query_one("#lens-about", Static).update(Content.styled(spec.description, "italic"))
            self._draw_settings()
            self._compute(settle=settle)
        self.refresh_bindings()  # the footer shows the new lens's keys: no slide where it has no slider

    def _draw_settings(self) -> None:
        settings = self.query_one("#lens-settings", Static)
        settings.display = bool(self._settings())
        settings.update(settings_content(self._spec, self.values(), self._chosen.get(self._spec.name, 0), self.context()))

    def on_session_changed(self, message: SessionChanged) -> None:
        loaded = self._session.active_tokenizer()
        if loaded is self._loaded:
            return
        self._loaded = loaded
        self._draw_settings()
        self._compute()

    # -- computing ---------------------------------------------------------------------------------------

    def _compute(self, *, settle: bool = False) -> None:
        """Ask for the lens on show with its settings; the request before, if still waiting, ends unrun.

        ``settle``: wait :attr:`SETTLE_SECONDS` first (a key that may well be followed by another), rather
        than start at once (the pane opening, a new tokenizer, text the user applied).
        """
        self._request += 1
        self._go.set()  # wakes the superseded request, which then sees it is no longer the latest
        go = self._go = threading.Event()
        view = self.query_one("#lens-view", LensView)
        context = self.context()
        if context is None:
            view.show_problem("No tokenizer yet: train one in the corpus pane (1) or open a file (ctrl+o).")
            return
        view.show_waiting("computing…")
        if not settle:
            go.set()
        self._run(self._spec, context, self.values(), self._request, go)

    def compute_now(self) -> None:
        """End the latest request's wait so it computes at once."""
        self._go.set()

    def _is_latest(self, key: int) -> bool:
        return key == self._request and not get_current_worker().is_cancelled

    @work(thread=True, exclusive=True, exit_on_error=False, group="lens-compute")
    def _run(self, spec: LensSpec, context: LensContext, values: dict[str, Any], key: int,
             go: threading.Event) -> None:
        go.wait(self.SETTLE_SECONDS)
        if not self._is_latest(key):
            return  # passed over: never computed
        try:
            result = spec.run(context, values)
        except BPEError as error:
            message: Message = self.LensFailed(key, str(error))
        except Exception as error:  # noqa: BLE001 - shown in the view, never a traceback
            message = self.LensFailed(key, f"{spec.name} failed: {type(error).__name__}: {error}")
        else:
            message = self.LensComputed(key, result)
        if self._is_latest(key):
            self.post_message(message)

    @on(LensComputed)
    def _show_result(self, message: LensComputed) -> None:
        if message.key != self._request:
            return
        self.last_result = message.result
        self.query_one("#lens-view", LensView).show_result(message.result)

    @on(LensFailed)
    def _show_failure(self, message: LensFailed) -> None:
        if message.key != self._request:
            return
        self.last_result = None
        self.query_one("#lens-view", LensView).show_problem(message.reason)

    # -- keys --------------------------------------------------------------------------------------------

    def _set(self, option: LensOption, value: Any) -> None:
        self._given.setdefault(self._spec.name, {})[option.name] = value
        self._draw_settings()
        self._compute()

    def _chosen_setting(self, kind: str) -> LensOption | None:
        """The chosen slider or toggle if it is of ``kind``, else the first of ``kind``."""
        settings = self._settings()
        chosen = self._chosen.get(self._spec.name, 0)
        if 0 <= chosen < len(settings) and settings[chosen].kind == kind:
            return settings[chosen]
        return next((option for option in settings if option.kind == kind), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("edit", "slide", "toggle", "pick", "move_list") and isinstance(self.focused, Input):
            return None  # typing in the field: the key is its own
        if action == "slide":
            return self._chosen_setting("int") is not None
        if action == "toggle":
            return self._chosen_setting("bool") is not None
        if action == "pick":
            return len(self._settings()) > 1
        if action == "edit":  # the lens the cursor is on, which may not be drawn yet
            return any(option.kind in ("text", "path") for option in self._highlighted_spec().options)
        return True

    def action_slide(self, steps: int, big: bool = False) -> None:
        option = self._chosen_setting("int")
        if option is None or self._loaded is None:
            return
        value = self.values()[option.name]
        moved = option.slide(value, steps, self.context(), big=big)
        if moved != value:
            self._set(option, moved)

    def action_toggle(self) -> None:
        option = self._chosen_setting("bool")
        if option is not None:
            self._set(option, not self.values()[option.name])

    def action_pick(self, steps: int) -> None:
        count = len(self._settings())
        if count:
            self._chosen[self._spec.name] = (self._chosen.get(self._spec.name, 0) + steps) % count
            self._draw_settings()

    async def action_edit(self) -> None:
        # The list's cursor may already be on another lens whose fields are not mounted yet (↓ then / typed
        # fast). Finish showing that lens first: the app waits for this action before it hands on the next
        # key, so focusing here (synchronously, not with focus()) means no typed character is lost.
        await self._show_lens(self._highlighted_spec())
        fields = self.query("#lens-fields Input")
        if fields:
            self.set_focus(fields.first(Input))

    def action_move_list(self, steps: int) -> None:
        lens_list = self.query_one("#lens-list", OptionList)
        if steps < 0:
            lens_list.action_cursor_up()
        else:
            lens_list.action_cursor_down()

    def action_scroll_view(self, pages: int) -> None:
        view = self.query_one("#lens-view", LensView)
        if pages < 0:
            view.scroll_page_up(animate=False)
        else:
            view.scroll_page_down(animate=False)

    def action_back(self) -> None:
        self.query_one("#lens-list", OptionList).focus()

    @on(Input.Submitted, "#lens-fields Input")
    def _field_submitted(self, message: Input.Submitted) -> None:
        name = (message.input.id or "").removeprefix("lens-field-")
        option = self._spec.option(name)
        value: Any = message.value
        if option.kind == "path" and value.strip() == "":
            value = None
        self._given.setdefault(self._spec.name, {})[name] = value
        self._compute()
        self.action_back()
