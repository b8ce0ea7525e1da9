"""Pane 4, token boundaries: a sample or typed text as coloured tokens, token details, English vs Japanese.

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
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Header, Input, Static
from textual.worker import get_current_worker

from bpe_tui.messages import SessionChanged
from bpe_tui.render import token_body
from bpe_tui.text import display_part, hex_bytes
from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.text_stats import TextStatsTable
from bpe_tui.widgets.token_view import TokenView
from core.analysis.compare import TextStats, text_stats

if TYPE_CHECKING:
    from core.encode.spans import TokenSpan

DISPLAY_CHARS = 6000
"""Longest text drawn as tokens (the header says when a sample is cut); the stats table still covers the
whole sample. Laying out a 50 KB sample's tokens is a noticeable pause on the UI thread for text no one
scrolls through."""

RECENT_TEXTS = 8
"""Tokenizations kept, so cycling through the samples does not encode them again."""

TYPED = "typed"
TYPING_HINT = "type text to tokenize (/ to focus, esc to leave)"
SIDE_BY_SIDE = ("english", "japanese")
TYPING_DELAY = 0.2
"""Seconds of quiet after a keystroke before the typed text is encoded again."""


def shown(text: str) -> str:
    """The part of ``text`` the pane draws (see ``DISPLAY_CHARS``)."""
    return display_part(text, DISPLAY_CHARS)


def detail_line(index: int, total: int, span: TokenSpan) -> Content:
    """One line about the token under the cursor: position, id, text, bytes, char and byte range."""
    body = Content("").join(token_body(span.token).split("\n"))  # keep the newline glyph, drop the break
    parts: list[Content | str | tuple[str, str]] = [
        (f"token {index + 1:,}/{total:,}", "bold"),
        f"  id {span.id}  ",
        body.stylize("reverse"),
        f"  bytes {hex_bytes(span.token)}",
        f"  chars {span.char_start}–{span.char_end}  bytes {span.byte_start}–{span.byte_end}",
    ]
    if span.is_special:
        parts.append(("  special", "bold $warning"))
    if span.starts_mid_char or span.ends_mid_char:
        parts.append(("  splits a character", "bold $error"))
    return Content.assemble(*parts)


class BoundariesScreen(Screen):
    """Shows how the active tokenizer cuts a text: boundaries, ids on demand, split characters, EN vs JA."""

    AUTO_FOCUS = "#boundaries-tokens"
    """Focused as the pane first shows, not after mounting: keys typed while it opens must not land in the input."""

    DEFAULT_CSS = """
    BoundariesScreen {
        layout: vertical;
        #boundaries-header { height: 1; padding: 0 1; background: $panel; }
        #boundaries-input { margin: 0 1; }
        #boundaries-views { height: 1fr; width: 100%; }
        TokenView { height: 1fr; width: 1fr; border: round $primary-muted; }
        TokenView:focus { border: round $primary; }
        #boundaries-en-tokens, #boundaries-ja-tokens { display: none; }
        &.-side-by-side #boundaries-tokens { display: none; }
        &.-side-by-side #boundaries-en-tokens, &.-side-by-side #boundaries-ja-tokens { display: block; }
        #token-detail { height: 1; padding: 0 1; }
        #boundaries-stats { margin: 0 1; max-height: 5; }
    }
    """

    BINDINGS = [
        Binding("s", "next_sample", "Sample"),
        # A priority binding, so "/" is acted on as it arrives and the keys typed after it reach the
        # field; while the field has focus, check_action lets "/" through to it as text.
        Binding("slash", "type_text", "Type", priority=True),
        Binding("i", "toggle_ids", "Ids"),
        Binding("v", "toggle_side_by_side", "EN|JA"),
        Binding("escape", "back_to_tokens", "Tokens", show=False),
    ]

    @dataclass
    class TextEncoded(Message, bubble=False):
        """A text was tokenized for the view it is shown in."""

        key: tuple[int, str, str]
        """(tokenizer id, view, text) it was made for."""
        spans: list[TokenSpan]

    @dataclass
    class SamplesMeasured(Message, bubble=False):
        """The English and Japanese samples were tokenized in full and measured."""

        tokenizer_key: int
        stats: dict[str, TextStats]

    @dataclass
    class EncodingFailed(Message, bubble=False):
        """Encoding raised; the reason is shown as a notification."""

        reason: str

    source: reactive[str] = reactive("english")
    """The sample shown in the main view, or ``"typed"`` for the text in the input."""

    side_by_side: reactive[bool] = reactive(False)
    """Show the English and Japanese samples next to each other instead of the main view."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session
        self._loaded: LoadedTokenizer | None = None
        self._typing_timer: Timer | None = None
        self._last_sample = "english"
        self._wanted: dict[str, tuple[int, str, str]] = {}
        self._recent: dict[tuple[int, str, str], list[TokenSpan]] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="boundaries-header", markup=False)
        yield Input(placeholder=TYPING_HINT, id="boundaries-input", compact=True)
        with Horizontal(id="boundaries-views"):
            yield TokenView(id="boundaries-tokens")
            yield TokenView(id="boundaries-en-tokens")
            yield TokenView(id="boundaries-ja-tokens")
        yield Static(id="token-detail", markup=False)
        yield TextStatsTable(id="boundaries-stats")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#boundaries-en-tokens").border_title = "english"
        self.query_one("#boundaries-ja-tokens").border_title = "japanese"
        self._sync_tokenizer(force=True)

    def on_session_changed(self, message: SessionChanged) -> None:
        self._sync_tokenizer()

    # -- state -----------------------------------------------------------------------------------------

    def _samples(self) -> dict[str, str]:
        return self._session.sample_texts()

    def _sync_tokenizer(self, force: bool = False) -> None:
        """Re-encode everything if the active tokenizer is not the one on screen."""
        loaded = self._session.active_tokenizer()
        if loaded is self._loaded and not force:
            return
        self._loaded = loaded
        self._wanted.clear()
        self._recent.clear()
        self._update_header()
        if loaded is None:
            for view in self.query(TokenView):
                view.set_tokens([])
            self.query_one("#token-detail", Static).update(
                Content.styled("No tokenizer yet: train one in the corpus pane or open a file.", "dim")
            )
            self.query_one(TextStatsTable).show([])
            return
        self.query_one(TextStatsTable).show([(name, None) for name in SIDE_BY_SIDE])
        self._encode_main()
        samples = self._samples()
        for view, name in zip(("en", "ja"), SIDE_BY_SIDE):
            self._request(view, shown(samples.get(name, "")))
        self._measure_samples(loaded)

    def _update_header(self) -> None:
        loaded = self._loaded
        name = loaded.shown_name if loaded is not None else "no tokenizer"
        where = "typed text" if self.source == TYPED else f"{self.source} sample"
        if self.source != TYPED and len(self._samples().get(self.source, "")) > DISPLAY_CHARS:
            where += f" (first {len(shown(self._samples()[self.source])):,} characters)"
        if self.side_by_side:
            where = "english | japanese samples"
        self.query_one("#boundaries-header", Static).update(
            Content.assemble(("boundaries", "bold"), "  ", (name, "$accent"), "  ·  ", where)
        )

    def _main_text(self) -> str:
        if self.source == TYPED:
            return shown(self.query_one("#boundaries-input", Input).value)
        return shown(self._samples().get(self.source, ""))

    def _encode_main(self) -> None:
        self._request("main", self._main_text())

    def _request(self, view: str, text: str) -> None:
        """Encode ``text`` for ``view`` ("main", "en", "ja") in a worker, unless it is already shown."""
        if self._loaded is None:
            return
        key = (id(self._loaded), view, text)
        if self._wanted.get(view) == key:
            return
        self._wanted[view] = key
        cached = self._recent.get(key)
        if cached is not None:
            self._view(view).set_tokens(cached)
        else:
            self._encode(self._loaded, key)

    # -- workers ---------------------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="boundaries-encode")
    def _encode(self, loaded: LoadedTokenizer, key: tuple[int, str, str]) -> None:
        try:
            spans = loaded.tokenizer.encode_with_spans(key[2])
        except Exception as error:  # noqa: BLE001 - any failure becomes a notification, not a traceback
            self.post_message(self.EncodingFailed(f"could not tokenize the text: {error}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.TextEncoded(key, spans))

    @work(thread=True, exclusive=True, exit_on_error=False, group="boundaries-samples")
    def _measure_samples(self, loaded: LoadedTokenizer) -> None:
        samples = self._samples()
        stats: dict[str, TextStats] = {}
        try:
            for name in SIDE_BY_SIDE:
                text = samples.get(name)
                if text is not None:
                    stats[name] = text_stats(text, loaded.tokenizer.encode(text))
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
        self._recent[message.key] = message.spans
        while len(self._recent) > RECENT_TEXTS:
            del self._recent[next(iter(self._recent))]
        self._view(view).set_tokens(message.spans)

    @on(SamplesMeasured)
    def _show_measured(self, message: SamplesMeasured) -> None:
        if self._loaded is None or message.tokenizer_key != id(self._loaded):
            return
        self.query_one(TextStatsTable).show([(name, message.stats.get(name)) for name in SIDE_BY_SIDE])

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
        names = list(self._samples())
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

    def watch_side_by_side(self, side_by_side: bool) -> None:
        self.set_class(side_by_side, "-side-by-side")
        if self.is_mounted:
            self._update_header()
            self._view("en" if side_by_side else "main").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "type_text" and isinstance(self.focused, Input):
            return None  # typing "/" in the field
        return True

    def action_type_text(self) -> None:
        self.side_by_side = False
        # Focused now, not with focus(), which waits its turn behind keys already queued: typed quickly
        # after "/" (or while the pane was busy), the first letters went to the token view and were lost.
        self.set_focus(self.query_one("#boundaries-input", Input))

    def action_back_to_tokens(self) -> None:
        self._view("en" if self.side_by_side else "main").focus()

    def action_toggle_ids(self) -> None:
        for view in self.query(TokenView):
            view.show_ids = not view.show_ids

    def action_toggle_side_by_side(self) -> None:
        self.side_by_side = not self.side_by_side

    @on(Input.Changed, "#boundaries-input")
    def _typed(self, event: Input.Changed) -> None:
        if self._typing_timer is not None:
            self._typing_timer.stop()
        self._typing_timer = self.set_timer(TYPING_DELAY, self._typing_settled)

    def _typing_settled(self) -> None:
        typed = self.query_one("#boundaries-input", Input).value
        target = TYPED if typed else self._last_sample
        if target != self.source:
            self.source = target  # the watcher encodes
        else:
            self._encode_main()

    @on(Input.Submitted, "#boundaries-input")
    def _submitted(self) -> None:
        self._typing_settled()
        self.action_back_to_tokens()
