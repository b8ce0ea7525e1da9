"""Pane 6, compare: two to four tokenizers on one text (a sample or the workbench's), aligned rows, per-script
counts, context coverage and vocabulary overlap; ``d`` switches the rows for the Diff view, the structural
diff of A and B (where their merges part, and why).

All encoding and set arithmetic runs in one thread worker per comparison, which posts a single
``Compared`` message; the handler only hands the results to widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Header, SelectionList, Static
from textual.widgets.selection_list import Selection
from textual.worker import get_current_worker

from bpe_tui.messages import SessionChanged
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.screens.windows_dialog import WindowsDialog
from bpe_tui.text import display_part, escape_token, share_text
from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.widgets.compare_view import LETTERS, MARKER, AlignedText, CompareView, align_tokenizations
from bpe_tui.widgets.diff_view import DiffView
from core.analysis.diff import StructuralDiff, structural_diff
from bpe_tui.widgets.coverage import coverage_cell
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.script_stats import ScriptStatsTable, stats_rows
from core.analysis.compare import VocabOverlap, boundary_diff, text_stats, tokens_by_script, vocab_overlap
from core.analysis.coverage import context_coverage, typed_lengths

MAX_TOKENIZERS = len(LETTERS)
DEFAULT_SAMPLE = "mixed"
WORKBENCH = "workbench"
"""The text choice that stands for the workbench's text (pane 4) rather than a bundled sample."""
NARROW_BELOW = 80
"""Columns under which the tokenizer list is hidden until ``t`` shows it, leaving the figures the width."""
COMPARE_CHARS = 3000
"""Longest text compared; the aligned rows of a whole 50 KB sample would be thousands of lines."""


@dataclass(frozen=True)
class Comparison:
    """Everything the pane shows for one choice of tokenizers and text."""

    aligned: AlignedText
    rows: list[tuple[str, list[str]]]
    overlaps: list[tuple[str, str, VocabOverlap]]
    differing: int
    structural: StructuralDiff | None = None
    """A against B, with how they split the compared text."""


def coverage_rows(chosen: list[LoadedTokenizer], whole: str, windows: tuple[int, ...]) -> list[tuple[str, list[str]]]:
    """One row a window: the characters / bytes of ``whole`` the first window covers under each tokenizer."""
    per_tokenizer = []
    for loaded in chosen:
        ids = loaded.tokenizer.encode(whole)
        lengths = typed_lengths(loaded.tokenizer, whole, ids, normalizes=loaded.model.normalizer is not None)
        per_tokenizer.append(context_coverage(whole, lengths, windows))
    return [
        (f"{window:,} tok: ch / B", [coverage_cell(coverages[position]) for coverages in per_tokenizer])
        for position, window in enumerate(windows)
    ]


def compare_texts(
    chosen: list[LoadedTokenizer], text: str, whole: str | None = None, windows: tuple[int, ...] = ()
) -> Comparison:
    """Tokenize ``text`` with each tokenizer and work out the pane's rows and overlaps (worker thread).

    ``whole`` is the text ``text`` was cut from (the default: ``text`` itself): context coverage, one row
    per size in ``windows``, is measured on all of it, since a window of 8,192 tokens holds more than the
    part of a sample the rows draw.
    """
    tokenizations = [loaded.tokenizer.encode_with_spans(text) for loaded in chosen]
    diff = boundary_diff(tokenizations)
    aligned = align_tokenizations(
        text, tokenizations, [[span.id for span in spans] for spans in tokenizations], diff.differing
    )
    rows = stats_rows(
        [text_stats(text, spans) for spans in tokenizations],
        [tokens_by_script(text, spans) for spans in tokenizations],
        [len(cuts - diff.shared) for cuts in diff.cuts],
    )
    rows += coverage_rows(chosen, text if whole is None else whole, windows)
    overlaps = [
        (LETTERS[0], LETTERS[other], vocab_overlap(chosen[0].model, chosen[other].model))
        for other in range(1, len(chosen))
    ]
    encoded = tuple(
        loaded.tokenizer.decode_tokens_bytes([span.id for span in spans])
        for loaded, spans in zip(chosen[:2], tokenizations)
    )
    structural = structural_diff(chosen[0].model, chosen[1].model, encoded=encoded) if len(chosen) >= 2 else None
    return Comparison(
        aligned=aligned, rows=rows, overlaps=overlaps, differing=len(diff.differing), structural=structural
    )


def overlap_content(overlaps: list[tuple[str, str, VocabOverlap]]) -> Content:
    """One line per pair: shared, only-in-A, only-in-B, Jaccard, and the first tokens only one side has."""
    lines = []
    for a, b, overlap in overlaps:
        only_a = " ".join(escape_token(token) for token in overlap.examples_a[:3])
        only_b = " ".join(escape_token(token) for token in overlap.examples_b[:3])
        lines.append(
            Content.assemble(
                (f"{a}∩{b} ", "bold"),
                f"shared {overlap.shared:,}  only {a} {overlap.only_a:,}  only {b} {overlap.only_b:,}  ",
                (f"jaccard {share_text(overlap.jaccard)}", "dim"),
                (f"   {a}: ", "dim"),
                only_a or "—",
                (f"   {b}: ", "dim"),
                only_b or "—",
            )
        )
    return Content("\n").join(lines)


def name_rooms(lengths: list[int], width: int) -> list[int]:
    """Cells each of the header's names may take in ``width`` (each also takes 6 around it): the short ones
    whole, the long ones an equal share of what is left, at least 8, so a long name never pushes the next
    letters out of the line.

    >>> name_rooms([4, 41], 60), name_rooms([4, 41], 40), name_rooms([30, 30, 4], 60)
    ([4, 41], [4, 24], [19, 19, 4])
    """
    rooms = [0] * len(lengths)
    left = width - 6 * len(lengths)
    waiting = sorted(range(len(lengths)), key=lengths.__getitem__)
    while waiting:
        share = left // len(waiting)
        position = waiting.pop(0)
        rooms[position] = min(lengths[position], max(8, share))
        left -= rooms[position]
    return rooms


class CompareScreen(PaneScreen):
    """Runs the chosen tokenizers over one sample and shows where and how much they differ."""

    AUTO_FOCUS = "#compare-scroll"
    """Focused as the pane first shows, not after mounting: keys typed while it opens must not reach the list."""

    DEFAULT_CSS = """
    CompareScreen {
        #compare-body { height: 1fr; }
        #compare-pick { width: 25%; min-width: 18; max-width: 32; height: 1fr; border: round $primary-muted; }
        #compare-pick:focus { border: round $primary; }
        /* Under 80 columns the list stands aside for the figures (column B was cut off at 64): t shows it. */
        &.-list-aside #compare-pick { display: none; }
        &.-list-aside.-picking #compare-pick { display: block; }
        #compare-main { width: 1fr; }
        #compare-header { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
        #compare-scroll { width: 100%; height: 1fr; min-height: 4; border: round $primary-muted; }
        #compare-scroll:focus { border: round $primary; }
        #compare-stats { margin: 0 1; }
        #compare-overlap { width: 100%; height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
        #compare-diff { display: none; }
        &.-diff #compare-diff { display: block; }
        &.-diff #compare-view { display: none; }
    }
    """

    BINDINGS = [
        Binding("s", "next_sample", "Sample"),
        Binding("t", "pick_tokenizers", "Tokenizers"),
        Binding("d", "toggle_diff", "Diff"),
        Binding("w", "edit_windows", "Windows", tooltip="Context window sizes for the coverage rows"),
        Binding("escape", "focus_rows", "Rows", show=False),
    ]

    @dataclass
    class Compared(Message, bubble=False):
        """A comparison for ``key`` is ready."""

        key: tuple[tuple[int, ...], str, str, tuple[int, ...]]
        comparison: Comparison

    @dataclass
    class CompareFailed(Message, bubble=False):
        """Comparing raised; shown as a notification."""

        reason: str

    sample: reactive[str] = reactive(DEFAULT_SAMPLE)
    """The bundled sample all tokenizers are run on, or ``"workbench"`` for the workbench's text."""

    diff_shown: reactive[bool] = reactive(False)
    """Whether the Diff view (A against B) replaces the aligned rows."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session
        self._known: tuple[int, ...] = ()
        self._chosen: list[int] = []
        self._wanted: tuple[tuple[int, ...], str, str, tuple[int, ...]] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="compare-body"):
            yield SelectionList[int](id="compare-pick")
            with Vertical(id="compare-main"):
                yield Static(id="compare-header", markup=False)
                with VerticalScroll(id="compare-scroll"):
                    yield CompareView(id="compare-view")
                    yield DiffView(id="compare-diff")
                yield ScriptStatsTable(id="compare-stats")
                yield Static(id="compare-overlap", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        pick = self.query_one("#compare-pick", SelectionList)
        pick.border_title = "tokenizers"
        pick.border_subtitle = "space: use"
        if self._session.workbench_text:
            self.set_reactive(CompareScreen.sample, WORKBENCH)  # text typed before this pane was first opened
        self._sync_session()

    def on_session_changed(self, message: SessionChanged) -> None:
        if message.reason == "workbench":
            # New text in the workbench is what the user wants compared; no text leaves only the samples.
            if self._session.workbench_text:
                self.sample = WORKBENCH
            elif self.sample == WORKBENCH:
                self.sample = DEFAULT_SAMPLE
        self._sync_session()

    def _texts(self) -> dict[str, str]:
        """The texts ``s`` cycles through: the bundled samples, then the workbench's text when it has one."""
        texts = self._session.sample_texts()
        if self._session.workbench_text:
            texts[WORKBENCH] = self._session.workbench_text
        return texts

    # -- choosing --------------------------------------------------------------------------------------

    def _session_tokenizers(self) -> list[LoadedTokenizer]:
        return list(self._session.tokenizers)

    def _sync_session(self) -> None:
        """Rebuild the list when tokenizers came or went, keeping the choice (or choosing two to start)."""
        tokenizers = self._session_tokenizers()
        known = tuple(id(loaded) for loaded in tokenizers)
        if known != self._known:
            self._known = known
            self._chosen = [index for index in self._chosen if index < len(tokenizers)]
            if len(self._chosen) < 2:
                self._chosen = self._default_choice(len(tokenizers))
            pick = self.query_one("#compare-pick", SelectionList)
            with pick.prevent(SelectionList.SelectedChanged):
                pick.clear_options()
                pick.add_options(
                    Selection(Content(loaded.shown_name), index, index in self._chosen)
                    for index, loaded in enumerate(tokenizers)
                )
                if tokenizers:
                    pick.highlighted = 0  # so space toggles something as soon as the list has focus
        self._request()

    def _default_choice(self, count: int) -> list[int]:
        """The active tokenizer and the newest other one."""
        active = self._session.active
        if count == 0:
            return []
        first = active if active is not None else count - 1
        others = [index for index in reversed(range(count)) if index != first]
        return sorted([first, *others[:1]])

    @on(SelectionList.SelectedChanged, "#compare-pick")
    def _picked(self, event: SelectionList.SelectedChanged) -> None:
        selected = sorted(event.selection_list.selected)
        if len(selected) > MAX_TOKENIZERS:
            added = next(index for index in selected if index not in self._chosen)
            with event.selection_list.prevent(SelectionList.SelectedChanged):
                event.selection_list.deselect(added)
            self.notify(f"Compare takes at most {MAX_TOKENIZERS} tokenizers.", severity="warning")
            return
        self._chosen = selected
        self._request()

    def _request(self) -> None:
        """Start a comparison for the current choice and sample, unless it is the one already shown."""
        samples = self._texts()
        if samples and self.sample not in samples:
            self.sample = next(iter(samples))  # the watcher comes back here
            return
        tokenizers = self._session_tokenizers()
        chosen = [tokenizers[index] for index in self._chosen if index < len(tokenizers)]
        text = samples.get(self.sample, "")
        key = (tuple(id(loaded) for loaded in chosen), self.sample, text, self._session.context_windows)
        if key == self._wanted:
            return
        self._wanted = key
        self._update_header(chosen)
        if len(chosen) < 2:
            self.query_one("#compare-scroll").border_subtitle = ""
            self.query_one(CompareView).show(None)
            self.query_one(DiffView).show(None)
            self.query_one(ScriptStatsTable).show([], [])
            hint = "Choose at least two tokenizers (t, then space)." if len(tokenizers) >= 2 else (
                "Compare needs two tokenizers: train another in the corpus pane or open a file."
            )
            self.query_one("#compare-overlap", Static).update(Content.styled(hint, "dim"))
            return
        compared = display_part(text, COMPARE_CHARS)
        cut = f"first {len(compared):,} of {len(text):,} characters" if len(compared) < len(text) else ""
        self.query_one("#compare-scroll").border_title = cut
        self._compare(key, chosen, compared, text)

    def _update_header(self, chosen: list[LoadedTokenizer], *, laid_out: bool = False) -> None:
        where = "workbench text" if self.sample == WORKBENCH else f"{self.sample} sample"
        title = "diff" if self.diff_shown else "compare"
        parts: list[str | tuple[str, str] | Content] = [(title, "bold"), f"  {where}  "]
        header = self.query_one("#compare-header", Static)
        if not header.content_region.width and not laid_out:  # first shown: cut the names once it has a width
            self.call_after_refresh(self._update_header, chosen, laid_out=True)
        names = [Content(loaded.shown_name) for loaded in chosen]
        rooms = name_rooms([name.cell_length for name in names], header.content_region.width - len(title + where) - 4)
        for letter, name, room in zip(LETTERS, names, rooms):
            shown = name.truncate(room - 1) + "…" if name.cell_length > room else name
            parts += [(f" {letter} ", "bold reverse"), " ", shown, "  "]
        header.update(Content.assemble(*parts))

    # -- worker and results ----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare")
    def _compare(
        self, key: tuple[tuple[int, ...], str, str, tuple[int, ...]], chosen: list[LoadedTokenizer], text: str, whole: str
    ) -> None:
        try:
            comparison = compare_texts(chosen, text, whole, key[3])
        except Exception as error:  # noqa: BLE001 - shown as a notification, never a traceback
            self.post_message(self.CompareFailed(f"could not compare: {error}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.Compared(key, comparison))

    @on(Compared)
    def _show(self, message: Compared) -> None:
        if message.key != self._wanted:
            return
        comparison = message.comparison
        count = len(message.key[0])
        self.query_one(CompareView).show(comparison.aligned)
        tokenizers = self._session_tokenizers()
        names = [tokenizers[index].name for index in self._chosen[:2] if index < len(tokenizers)]
        self.query_one(DiffView).show(comparison.structural, *names)
        self.query_one(ScriptStatsTable).show(list(LETTERS[:count]), comparison.rows)
        scroll = self.query_one("#compare-scroll")
        places = "place" if comparison.differing == 1 else "places"
        scroll.border_subtitle = f"{MARKER} boundaries differ at {comparison.differing:,} {places}"
        self.query_one("#compare-overlap", Static).update(overlap_content(comparison.overlaps))

    @on(CompareFailed)
    def _show_failure(self, message: CompareFailed) -> None:
        self.notify(message.reason, title="Compare", severity="error")

    # -- actions ---------------------------------------------------------------------------------------

    def action_next_sample(self) -> None:
        names = list(self._texts())
        if not names:
            self.notify("No bundled samples were found.", severity="warning")
            return
        position = names.index(self.sample) + 1 if self.sample in names else 0
        self.sample = names[position % len(names)]

    def watch_sample(self) -> None:
        if self.is_mounted:
            self._request()

    def action_toggle_diff(self) -> None:
        self.diff_shown = not self.diff_shown

    def watch_diff_shown(self, shown: bool) -> None:
        self.set_class(shown, "-diff")
        if self.is_mounted:
            tokenizers = self._session_tokenizers()
            self._update_header([tokenizers[index] for index in self._chosen if index < len(tokenizers)])

    def action_edit_windows(self) -> None:
        def chosen(windows: tuple[int, ...] | None) -> None:
            if windows is not None:
                self._session.set_context_windows(windows)

        self.app.push_screen(WindowsDialog(self._session.context_windows), chosen)

    def action_pick_tokenizers(self) -> None:
        self.add_class("-picking")
        self.query_one("#compare-pick", SelectionList).focus()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_BELOW, "-list-aside")

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if event.widget.id == "compare-pick":
            self.remove_class("-picking")  # shown for choosing: a narrow screen hides it again

    def action_focus_rows(self) -> None:
        self.query_one("#compare-scroll").focus()
