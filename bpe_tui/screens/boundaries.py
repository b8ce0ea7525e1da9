"""Pane 4, the text workbench: a text typed or pasted (or a sample) as coloured tokens, live counts, context
coverage, token details, English vs Japanese; ids or tokens to the clipboard, a token to the Inspector.

Encoding runs in thread workers that only post messages; handlers on the UI thread update widgets.
Each result carries the tokenizer and text it was made for, so a late result for a previous tokenizer
or an older keystroke is dropped instead of overwriting a newer one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Header, Static, TextArea
from textual.worker import get_current_worker

from bpe_tui.boundaries_text import (
    DISPLAY_CHARS,
    SIDE_BY_SIDE,
    Measured,
    detail_line,
    measure_text,
    sample_stats,
    shown,
    tokens_json,
)
from bpe_tui.messages import SessionChanged
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.screens.windows_dialog import WindowsDialog
from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.widgets.coverage import coverage_line
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.text_stats import TextStatsTable
from bpe_tui.widgets.token_view import TokenView
from bpe_tui.widgets.workbench_input import WorkbenchInput
from core.analysis.compare import TextStats

if TYPE_CHECKING:
    from core.encode.spans import TokenSpan

RECENT_TEXTS = 8
"""Tokenizations kept, so cycling through the samples does not encode them again."""

TYPED = "typed"
"""Seconds of quiet after a keystroke before the typed text is encoded again."""


class BoundariesScreen(PaneScreen):
    """The text workbench: how the active tokenizer cuts a text, with live counts, coverage and token details."""

    AUTO_FOCUS = "#boundaries-tokens"
    """Focused as the pane first shows, not after mounting: keys typed while it opens must not land in the text."""

    DEFAULT_CSS = """
    BoundariesScreen {
        layout: vertical;
        #boundaries-header {
            height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis;
        }
        #boundaries-input { height: 5; max-height: 40%; margin: 0 1; border: round $primary-muted; }
        #boundaries-input:focus { height: 12; border: round $primary; }
        #boundaries-views { height: 1fr; width: 100%; }
        TokenView { height: 1fr; width: 1fr; border: round $primary-muted; }
        TokenView:focus { border: round $primary; }
        #boundaries-en-tokens, #boundaries-ja-tokens { display: none; }
        &.-side-by-side #boundaries-tokens { display: none; }
        &.-side-by-side #boundaries-en-tokens, &.-side-by-side #boundaries-ja-tokens { display: block; }
        #token-detail { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
        #boundaries-coverage { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
        #boundaries-stats { margin: 0 1; max-height: 5; }
    }
    """

    BINDINGS = [
        Binding("s", "next_sample", "Sample"),
        # A priority binding, so "/" is acted on as it arrives and the keys typed after it reach the
        # field; while the field has focus, check_action lets "/" through to it as text.
        Binding("slash", "type_text", "Type", priority=True),
        Binding("e", "edit_sample", "Edit sample", tooltip="Copy the sample shown into the text, to edit it"),
        Binding("i", "toggle_ids", "Ids"),
        Binding("v", "toggle_side_by_side", "EN|JA"),
        Binding("enter", "inspect_token", "Inspect", tooltip="The token under the cursor in the Inspector"),
        Binding("c", "copy_ids", "Copy ids"),
        Binding("C", "copy_tokens", "Copy tokens", show=False),
        Binding("w", "edit_windows", "Windows", tooltip="Context window sizes for the coverage line"),
        Binding("escape", "back_to_tokens", "Tokens", show=False),
    ]

    @dataclass
    class TextEncoded(Message, bubble=False):
        """A text was tokenized for the view it is shown in (and, for the main view, measured whole)."""

        key: tuple[int, str, str, tuple[int, ...]]
        """(tokenizer id, view, text, context windows) it was made for."""
        spans: list[TokenSpan]
        measured: Measured | None = None

    @dataclass
    class SamplesMeasured(Message, bubble=False):
        """The English and Japanese samples were tokenized in full and measured."""

        tokenizer_key: int
        stats: dict[str, TextStats]

    @dataclass
    class EncodingFailed(Message, bubble=False):
        """Encoding raised; the reason is shown as a notification."""

        reason: str

    @dataclass
    class InspectRequested(Message):
        """The user asked to see a token in the Inspector (the app switches pane and shows it there)."""

        token_id: int

    source: reactive[str] = reactive("english")
    """The sample shown in the main view, or ``"typed"`` for the text in the workbench."""

    side_by_side: reactive[bool] = reactive(False)
    """Show the English and Japanese samples next to each other instead of the main view."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session
        self._loaded: LoadedTokenizer | None = None
        self._last_sample = "english"
        self._wanted: dict[str, tuple[int, str, str, tuple[int, ...]]] = {}
        self._recent: dict[tuple[int, str, str, tuple[int, ...]], tuple[list[TokenSpan], Measured | None]] = {}
        self._measured: Measured | None = None
        """The main text's measurement on screen, ``None`` while it is being made."""
        self._sample_stats: dict[str, TextStats] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="boundaries-header", markup=False)
        yield WorkbenchInput(id="boundaries-input")
        with Horizontal(id="boundaries-views"):
            yield TokenView(id="boundaries-tokens")
            yield TokenView(id="boundaries-en-tokens")
            yield TokenView(id="boundaries-ja-tokens")
        yield Static(id="token-detail", markup=False)
        yield Static(id="boundaries-coverage", markup=False)
        yield TextStatsTable(id="boundaries-stats")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#boundaries-en-tokens").border_title = "english"
        self.query_one("#boundaries-ja-tokens").border_title = "japanese"
        area = self._area()
        area.border_title = "text"
        area.border_subtitle = "/ edit · esc done"
        self._sync_tokenizer(force=True)

    def on_session_changed(self, message: SessionChanged) -> None:
        self._sync_tokenizer(force=message.reason == "windows")

    # -- state -----------------------------------------------------------------------------------------

    def _samples(self) -> dict[str, str]:
        return self._session.sample_texts()

    def _area(self) -> WorkbenchInput:
        return self.query_one("#boundaries-input", WorkbenchInput)

    def _sync_tokenizer(self, force: bool = False) -> None:
        """Re-encode everything if the active tokenizer is not the one on screen."""
        loaded = self._session.active_tokenizer()
        if loaded is self._loaded and not force:
            return
        self._loaded = loaded
        self._wanted.clear()
        self._recent.clear()
        self._measured = None
        self._sample_stats = {}
        self._update_header()
        if loaded is None:
            for view in self.query(TokenView):
                view.set_tokens([])
            self.query_one("#token-detail", Static).update(
                Content.styled("No tokenizer yet: train one in the corpus pane or open a file.", "dim")
            )
            self.query_one("#boundaries-coverage", Static).update("")
            self.query_one(TextStatsTable).show([])
            return
        self._show_stats()
        self._encode_main()
        samples = self._samples()
        for view, name in zip(("en", "ja"), SIDE_BY_SIDE):
            self._request(view, shown(samples.get(name, "")))
        self._measure_samples(loaded)

    def _update_header(self) -> None:
        loaded = self._loaded
        name = loaded.shown_name if loaded is not None else "no tokenizer"
        text = self._main_text()
        where = self._area().label if self.source == TYPED else f"{self.source} sample"
        if len(text) > DISPLAY_CHARS:
            where += f" (first {len(shown(text)):,} characters drawn)"
        if self.side_by_side:
            where = "english | japanese samples"
        # What is shown first, the tokenizer's name (also in the title bar) last: a long name such as the
        # start-up run's cut "(first 5,527 characters drawn)" to "(first" at 80 columns.
        self.query_one("#boundaries-header", Static).update(
            Content.assemble(("workbench", "bold"), "  ", where, "  ·  ", (name, "$readable-accent"))
        )

    def _main_label(self) -> str:
        return self._area().label if self.source == TYPED else self.source

    def _show_stats(self) -> None:
        """The stats table: the main text first (live), then the English and Japanese samples."""
        measured = self._measured
        rows: list[tuple[str, TextStats | None]] = [(self._main_label(), measured.stats if measured else None)]
        rows += [(name, self._sample_stats.get(name)) for name in SIDE_BY_SIDE if name != self.source]
        self.query_one(TextStatsTable).show(rows)
        coverage = self.query_one("#boundaries-coverage", Static)
        if measured is None:
            coverage.update(Content.styled("context windows: measuring…", "dim"))
        else:
            coverage.update(coverage_line(measured.coverage))

    def _main_text(self) -> str:
        """The whole text of the main view: the workbench's, or the sample shown."""
        if self.source == TYPED:
            return self._area().exact_text
        return self._samples().get(self.source, "")

    def _encode_main(self) -> None:
        self._request("main", self._main_text())

    def _request(self, view: str, text: str) -> None:
        """Encode ``text`` for ``view`` ("main", "en", "ja") in a worker, unless it is already shown."""
        if self._loaded is None:
            return
        key = (id(self._loaded), view, text, self._session.context_windows)
        if self._wanted.get(view) == key:
            return
        self._wanted[view] = key
        cached = self._recent.get(key)
        if cached is not None:
            self._display(view, *cached)
        else:
            if view == "main":
                self._measured = None
                self._show_stats()
            self._encode(self._loaded, key)

    # -- workers ---------------------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="boundaries-encode")
    def _encode(self, loaded: LoadedTokenizer, key: tuple[int, str, str, tuple[int, ...]]) -> None:
        view, text, windows = key[1], key[2], key[3]
        try:
            spans = loaded.tokenizer.encode_with_spans(shown(text))
            measured = measure_text(loaded, text, windows) if view == "main" else None
        except Exception as error:  # noqa: BLE001 - any failure becomes a notification, not a traceback
            self.post_message(self.EncodingFailed(f"could not tokenize the text: {error}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.TextEncoded(key, spans, measured))

    @work(thread=True, exclusive=True, exit_on_error=False, group="boundaries-samples")
    def _measure_samples(self, loaded: LoadedTokenizer) -> None:
        try:
            stats = sample_stats(loaded, self._samples())
        except Exception as error:  # noqa: BLE001
            self.post_message(self.EncodingFailed(f"could not measure the samples: {error}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.SamplesMeasured(id(loaded), stats))

    # -- results ---------------------------------------------------------------------------------------

    @on(TextEncoded)
    def _show_encoded(self, message: TextEncoded) -> None:
        view = message.key[1]
        if self._wanted.get(view) != message.key:
            return  # a newer request for this view is on its way
        self._recent[message.key] = (message.spans, message.measured)
        while len(self._recent) > RECENT_TEXTS:
            del self._recent[next(iter(self._recent))]
        self._display(view, message.spans, message.measured)

    def _display(self, view: str, spans: list[TokenSpan], measured: Measured | None) -> None:
        self._view(view).set_tokens(spans)
        if view == "main":
            self._measured = measured
            self._show_stats()

    @on(SamplesMeasured)
    def _show_measured(self, message: SamplesMeasured) -> None:
        if self._loaded is None or message.tokenizer_key != id(self._loaded):
            return
        self._sample_stats = message.stats
        self._show_stats()

    @on(EncodingFailed)
    def _show_failure(self, message: EncodingFailed) -> None:
        self.notify(message.reason, title="Boundaries", severity="error")

    @on(TokenView.Highlighted)
    def _show_detail(self, message: TokenView.Highlighted) -> None:
        if message.token_view is not self._visible_view():
            return
        span = cast("TokenSpan", message.token)  # the views are only ever fed encode_with_spans results
        total = len(message.token_view.tokens)
        self.query_one("#token-detail", Static).update(detail_line(message.index, total, span))

    def _view(self, view: str) -> TokenView:
        return self.query_one("#boundaries-tokens" if view == "main" else f"#boundaries-{view}-tokens", TokenView)

    def _visible_view(self) -> TokenView:
        focused = self.focused
        if isinstance(focused, TokenView):
            return focused
        return self._view("en" if self.side_by_side else "main")

    # -- actions ---------------------------------------------------------------------------------------

    def action_next_sample(self) -> None:
        """Cycle the main view through the samples and, when there is one, the workbench's own text."""
        names = list(self._samples())
        if self._area().text:
            names.append(TYPED)
        if not names:
            self.notify("No bundled samples were found.", severity="warning")
            return
        current = self.source if self.source in names else self._last_sample
        following = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self.side_by_side = False
        self.source = following

    def watch_source(self, source: str) -> None:
        if source != TYPED:
            self._last_sample = source
        if self.is_mounted:
            self._update_header()
            self._encode_main()
            self._show_stats()

    def watch_side_by_side(self, side_by_side: bool) -> None:
        self.set_class(side_by_side, "-side-by-side")
        if self.is_mounted:
            self._update_header()
            self._view("en" if side_by_side else "main").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("type_text", "inspect_token") and isinstance(self.focused, TextArea):
            return False  # "/" and Enter type into the text: the footer does not offer them while typing
        return True

    def action_type_text(self) -> None:
        self.side_by_side = False
        # Focused now, not with focus(), which waits its turn behind keys already queued: typed quickly
        # after "/" (or while the pane was busy), the first letters went to the token view and were lost.
        self.set_focus(self._area())

    def action_edit_sample(self) -> None:
        """Put the sample shown into the workbench, as a starting point to edit (the text there is replaced)."""
        text = self._samples().get(self._last_sample if self.source == TYPED else self.source)
        if text is None:
            self.notify("No bundled samples were found.", severity="warning")
            return
        area = self._area()
        area.load_text(text)
        area.move_cursor((0, 0))
        self.side_by_side = False
        self._typing_settled()
        self.set_focus(area)

    def show_text(self, text: str, label: str) -> None:
        """Replace the workbench's text with ``text`` from elsewhere (an id file the app decoded), called
        ``label`` (e.g. "ids.npy decoded") until it is edited. Focus stays where it is, so pane keys still work."""
        self._area().show(text, label)
        self.side_by_side = False
        self._typing_settled()
        self._show_stats()  # the same text under a new label is not encoded again, but its row is renamed

    def action_back_to_tokens(self) -> None:
        self._view("en" if self.side_by_side else "main").focus()

    def action_toggle_ids(self) -> None:
        for view in self.query(TokenView):
            view.show_ids = not view.show_ids

    def action_toggle_side_by_side(self) -> None:
        self.side_by_side = not self.side_by_side

    def action_inspect_token(self) -> None:
        """Show the token under the cursor in the Inspector: its row and its merge tree."""
        view = self._visible_view()
        if view.cursor is None or not view.tokens:
            return
        span = cast("TokenSpan", view.tokens[view.cursor])
        self.post_message(self.InspectRequested(span.id))

    def action_copy_ids(self) -> None:
        """Copy the ids of the whole main text (not only the part drawn), space-separated."""
        measured = self._ready_measurement()
        if measured is not None:
            self.app.copy_to_clipboard(" ".join(map(str, measured.ids)))
            self.notify(f"Copied {len(measured.ids):,} ids of {self._main_label()}.", markup=False)

    def action_copy_tokens(self) -> None:
        """Copy the tokens of the whole main text as a JSON list of strings."""
        measured = self._ready_measurement()
        if measured is not None and self._loaded is not None:
            tokens = self._loaded.tokenizer.decode_tokens_bytes(measured.ids)
            self.app.copy_to_clipboard(tokens_json(tokens))
            self.notify(f"Copied {len(tokens):,} tokens of {self._main_label()} (a JSON list).", markup=False)

    def _ready_measurement(self) -> Measured | None:
        if self._loaded is None:
            self.notify("No tokenizer yet: nothing to copy.", severity="warning")
            return None
        if self._measured is None:
            self.notify("Still tokenizing the text; try again in a moment.", severity="warning")
        return self._measured

    def action_edit_windows(self) -> None:
        def chosen(windows: tuple[int, ...] | None) -> None:
            if windows is not None:
                self._session.set_context_windows(windows)

        self.app.push_screen(WindowsDialog(self._session.context_windows), chosen)

    @on(WorkbenchInput.Settled)
    def _typing_settled(self) -> None:
        typed = self._area().exact_text
        self._session.set_workbench_text(typed)
        target = TYPED if typed else self._last_sample
        if target != self.source:
            self.source = target  # the watcher encodes
        else:
            self._update_header()
            self._encode_main()
