"""The merge stepper: step, jump or play through merges and see each merge, the candidates, and the text at k."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from bpe_tui.messages import SessionChanged
from bpe_tui.render import tokens_content
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.session import Session
from bpe_tui.stepper_model import LiveSteps, ReplaySteps, Step, tie_decider, tie_reason
from bpe_tui.stepper_sources import (
    CORPUS_BYTES, LIVE_MERGES, PLAY_SECONDS, SOURCES, TEXT_NAMES, corpus_head, end_reason, sample_sentence,
)
from bpe_tui.text import counted, escape_token, shown_text
from bpe_tui.widgets.key_footer import KeyFooter
from core.model import CHAR_BASE

TOKEN_CHARS = 16
"""Most characters of a token the step's line writes (``…`` after): a merge of two rules of 128 '=' took the
whole screen at 80x24, the candidates and the sentence pushed off it."""


@dataclass(frozen=True)
class SegmentToken:
    """One token of the segmented sentence: what ``render.tokens_content`` needs."""

    id: int
    token: bytes


def _cells(token: bytes) -> Text:
    return Text(escape_token(token))


class StepperScreen(PaneScreen):
    """Keys move the step; a thread worker computes it; the handler shows it. Stale results are dropped."""

    BINDINGS = [
        Binding("right", "step(1)", "Next", tooltip="One merge forward"),
        Binding("left", "step(-1)", "Back", tooltip="One merge back"),
        Binding("pagedown", "step(10)", "+10", key_display="PgDn"),
        Binding("pageup", "step(-10)", "-10", key_display="PgUp"),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("space", "play", "Play/pause"),
        Binding(
            "c", "next_source", "Source",
            tooltip="Toy, English, Japanese or your corpus as a live run, or the active tokenizer's merges",
        ),
        Binding("t", "next_text", "Text", tooltip="Which sample sentence to segment"),
    ]

    @dataclass
    class StepComputed(Message):
        """Step ``step.k`` of ``source`` is ready, with the spans of ``text`` at that step."""

        source: str
        step: Step
        text: str
        spans: list[SegmentToken]

    @dataclass
    class StepFailed(Message):
        source: str
        reason: str

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session
        self.source = "toy"
        """Which of ``SOURCES`` the steps come from."""
        self.k = 0
        """The step asked for (the shown one may lag while a worker computes it)."""
        self.shown: Step | None = None
        """The step on screen."""
        self._text_name: str | None = None
        self._live: dict[str, LiveSteps] = {}
        self._corpus: Path | None = None
        """The corpus the ``corpus`` live run was built from."""
        self._corpus_problem: str | None = None
        """Why the corpus chosen cannot be stepped through (empty, not UTF-8, unreadable), or ``None``."""
        self._replay: ReplaySteps | None = None
        self._timer: Timer | None = None
        self._playing = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="stepper-top")
        with Horizontal(id="stepper-body"):
            table: DataTable = DataTable(id="candidates", cursor_type="none", zebra_stripes=True)
            table.can_focus = False  # the arrow keys step merges; a focused table would take them
            yield table
            with VerticalScroll(id="segmentation-box", can_focus=False):
                yield Static("", id="segmentation")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._timer = self.set_interval(PLAY_SECONDS, self._tick, pause=True)
        self._compute()

    def on_session_changed(self, message: SessionChanged) -> None:
        if self.source == "tokenizer" and message.reason in ("added", "active", "replaced"):
            self._sync_replay()
        if message.reason == "corpus" and self._session.corpus_path != self._corpus:
            self._live.pop("corpus", None)
            if self.source == "corpus":
                self.k = 0
                self._compute()

    # -- what is stepped ------------------------------------------------------------------------------------

    @property
    def playing(self) -> bool:
        """Whether the step advances by itself (space toggles)."""
        return self._playing

    def _texts(self) -> dict[str, str]:
        return self._session.sample_texts()

    def text_name(self) -> str:
        """The sample whose sentence is segmented: the live corpus's own unless ``t`` chose another."""
        if self._text_name is not None:
            return self._text_name
        return self.source if self.source in (*TEXT_NAMES, "corpus") else "english"

    def _sentence(self) -> str:
        texts = self._texts()
        name = self.text_name()
        if name == "toy":
            return texts.get("toy", "low low low lower lower newest").strip()
        if name == "corpus":
            steps = self._live.get("corpus")
            return sample_sentence(steps.text) if steps is not None else ""
        return sample_sentence(texts.get(name, ""))

    def _steps(self) -> LiveSteps | ReplaySteps | None:
        if self.source == "tokenizer":
            if self._replay is None:
                self._sync_replay(compute=False)
            return self._replay
        steps = self._live.get(self.source)
        if steps is None:
            text = self._corpus_text() if self.source == "corpus" else self._texts().get(self.source)
            if not text:
                return None
            steps = self._live[self.source] = LiveSteps(text, max_merges=LIVE_MERGES[self.source])
        return steps

    def _corpus_text(self) -> str | None:
        """The start of the corpus chosen in the corpus pane, or ``None`` if unusable (``_corpus_problem`` says why).

        The reason goes on the top line, not in a notification: every step key asks again, and each stacked
        another notice under "choose a text file", though the file was one.
        """
        path = self._corpus = self._session.corpus_path
        self._corpus_problem = None
        if path is None:
            return None
        try:
            text = corpus_head(path)
        except (OSError, UnicodeDecodeError) as error:
            reason = (error.strerror or str(error)) if isinstance(error, OSError) else "not UTF-8 text"
        else:
            if text:
                return text
            reason = "empty"
        self._corpus_problem = f"{shown_text(path.name)}: {reason}; choose another text file in the corpus pane (1)."
        return None

    def _sync_replay(self, *, compute: bool = True) -> None:
        loaded = self._session.active_tokenizer()
        model = loaded.model if loaded is not None else None
        if model is None:
            self._replay = None
        elif self._replay is None or self._replay.model is not model:
            self._replay = ReplaySteps(model)
            self.k = min(self.k, self._replay.total)
        if compute:
            self._compute()

    # -- actions ----------------------------------------------------------------------------------------------

    def _total(self) -> int | None:
        steps = self._steps()
        return None if steps is None else steps.total

    def action_step(self, delta: int) -> None:
        total = self._total()
        target = max(0, self.k + delta)
        self.k = target if total is None else min(target, total)
        self._compute()

    def action_jump(self, k: int) -> None:
        """Jump to step ``k``; -1 means the last merge (a live run is taken to its end)."""
        if k < 0:
            total = self._total()
            k = total if total is not None else 10**9
        self.k = k
        self._compute()

    def action_play(self) -> None:
        self._playing = not self._playing
        assert self._timer is not None
        if self._playing:
            self._timer.resume()
        else:
            self._timer.pause()
        self._show_top()

    def _tick(self) -> None:
        total = self._total()
        if total is not None and self.k >= total:
            self.action_play()
            return
        self.action_step(1)

    def action_next_source(self) -> None:
        self.source = SOURCES[(SOURCES.index(self.source) + 1) % len(SOURCES)]
        self._text_name = None
        self.k = 0
        if self.source == "tokenizer":
            self._sync_replay()
        else:
            self._compute()

    def action_next_text(self) -> None:
        current = self.text_name()
        self._text_name = TEXT_NAMES[(TEXT_NAMES.index(current) + 1) % len(TEXT_NAMES)]
        self._compute()

    # -- computing and showing -------------------------------------------------------------------------------

    def _compute(self) -> None:
        steps = self._steps()
        if steps is None:
            self.shown = None
            what = {
                "tokenizer": "No active tokenizer: train one or open a file (ctrl+o).",
                "corpus": self._corpus_problem or "No corpus: choose a text file in the corpus pane (1).",
            }.get(self.source, f"The {self.source} sample was not found.")
            self.query_one("#stepper-top", Static).update(Content(what))
            self.query_one("#segmentation", Static).update("")
            self.query_one("#candidates", DataTable).clear(columns=True)
            return
        self._work(steps, self.source, self.k, self._sentence())

    @work(thread=True, exclusive=True, exit_on_error=False, group="stepper")
    def _work(self, steps: LiveSteps | ReplaySteps, source: str, k: int, text: str) -> None:
        worker = get_current_worker()
        try:
            if isinstance(steps, LiveSteps):
                steps.measure_total()
            step = steps.step(k)
            tokenizer = step.tokenizer()
            spans = [SegmentToken(i, tokenizer.decode_single_token_bytes(i)) for i in tokenizer.encode(text)]
        except Exception as error:  # noqa: BLE001 - a bad tokenizer file must not end the app
            self.post_message(self.StepFailed(source, f"{type(error).__name__}: {error}"))
            return
        if not worker.is_cancelled:
            self.post_message(self.StepComputed(source, step, text, spans))

    def on_stepper_screen_step_failed(self, message: StepFailed) -> None:
        self.notify(message.reason, title="Stepper", severity="error", markup=False)

    def on_stepper_screen_step_computed(self, message: StepComputed) -> None:
        if message.source != self.source:
            return
        step = message.step
        self.shown = step
        if step.k != self.k and (step.total is not None and self.k > step.total or self.k > step.k):
            self.k = step.k  # asked past the end: settle on the last step
        self._show_top()
        self._show_table(step)
        self._show_segmentation(message.text, message.spans, step.k)

    def _source_label(self) -> str:
        if self.source == "tokenizer":
            loaded = self._session.active_tokenizer()
            return f"replaying {loaded.shown_name if loaded is not None else '—'}"
        if self.source == "corpus":
            steps = self._live.get("corpus")
            name = shown_text(self._corpus.name) if self._corpus is not None else "—"
            whole = steps is not None and self._corpus is not None and len(steps.text.encode()) >= CORPUS_BYTES
            return f"live training on {name}" + (f" (first {CORPUS_BYTES // 1024} KiB)" if whole else "")
        return f"live training on the {self.source} sample"

    def _show_top(self) -> None:
        step = self.shown
        if step is None:
            return
        total = "?" if step.total is None else f"{step.total:,}"
        lines = [
            Content.assemble(
                (f"step {step.k:,} / {total}", "bold"),
                f"  ·  {self._source_label()}",
                ("  ▶ playing" if self._playing else "", "bold $readable-success"),
            )
        ]
        merge = step.merge
        if merge is None:
            start = "characters" if step.model.base == CHAR_BASE else "bytes"
            lines.append(Content.styled(f"step 0: {start} only, no merge yet", "dim"))
        else:
            count = "—" if merge.count is None else f"{merge.count:,}"
            parts: list[str | tuple[str, str]] = [
                f"merge {merge.rank}: ",
                (escape_token(merge.left, limit=TOKEN_CHARS), "bold"),
                " + ",
                (escape_token(merge.right, limit=TOKEN_CHARS), "bold"),
                " → ",
                (escape_token(merge.token, limit=TOKEN_CHARS), "bold $readable-accent"),
                f"   count {count}",
            ]
            runner_up = step.runner_up
            if runner_up is not None:
                parts += [
                    "   runner-up ",
                    (escape_token(runner_up[0], limit=TOKEN_CHARS), "bold"),
                    " + ",
                    (escape_token(runner_up[1], limit=TOKEN_CHARS), "bold"),
                    f" {runner_up[2]:,}",
                ]
            elif merge.runner_up_count == 0:
                parts.append("   no other pair left")
            elif merge.runner_up_count is not None:
                parts.append(f"   runner-up {merge.runner_up_count:,}")
            if merge.won_tie:
                parts.append(("  tie", "bold $readable-warning"))
            lines.append(Content.assemble(*parts))
            if merge.won_tie and runner_up is not None and merge.count is not None:
                reason = tie_reason((merge.left, merge.right, merge.count), runner_up)
                lines.append(Content.styled(f"tie: {reason}", "$readable-warning"))
        if self.source != "tokenizer" and step.total is not None and step.k == step.total:
            lines.append(Content.styled(end_reason(self.source, step.total), "dim"))
        self.query_one("#stepper-top", Static).update(Content("\n").join(lines))

    def _show_table(self, step: Step) -> None:
        table = self.query_one("#candidates", DataTable)
        table.clear(columns=True)
        box = table
        if self.source == "tokenizer":
            box.border_title = "Merges around this step (recorded counts)"
            box.border_subtitle = ""
            table.add_columns("", "#", "left", "right", "token", "count")
            for merge in step.nearby:
                mark = Text("▶", style="bold") if merge.rank == step.k - 1 else Text("")
                count = "—" if merge.count is None else f"{merge.count:,}"
                tokens = (_cells(merge.left), _cells(merge.right), _cells(merge.token))
                table.add_row(mark, Text(str(merge.rank)), *tokens, Text(count))
        else:
            box.border_title = "Next merge candidates"
            table.add_columns("", "left", "right", "token", "count")
            best = step.candidates[0][2] if step.candidates else None
            for place, (left, right, count) in enumerate(step.candidates):
                mark = {0: Text("▶ next", style="bold"), 1: Text("2nd")}.get(place, Text(""))
                if place > 1 and count == best:
                    mark = Text("tie", style="italic")
                cells = (_cells(left), _cells(right), _cells(left + right))
                table.add_row(mark, *cells, Text(f"{count:,}", justify="right"))
            if len(step.candidates) > 1 and step.candidates[1][2] == best:
                box.border_subtitle = "tie → " + tie_decider(step.candidates[0], step.candidates[1])
            else:
                box.border_subtitle = ""

    def _show_segmentation(self, text: str, spans: list[SegmentToken], k: int) -> None:
        box = self.query_one("#segmentation-box")
        box.border_title = f"{self.text_name()} sentence at step {k:,}"
        nbytes = len(text.encode("utf-8"))
        count = len(spans)
        summary = Content.styled(
            f"{counted(count, 'token')} · {nbytes / count if count else 0:.2f} bytes/token · "
            f"{len(text) / count if count else 0:.2f} chars/token",
            "dim",
        )
        self.query_one("#segmentation", Static).update(Content("\n\n").join([tokens_content(spans), summary]))
