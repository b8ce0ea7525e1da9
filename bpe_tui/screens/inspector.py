"""Pane 5, the inspector: the active tokenizer's make-up, a searchable vocabulary, its longest tokens, the
merges its training decided by a tie, merge trees.

The vocabulary rows (and the merge index behind their rank and parent columns) are built in a thread
worker, as is every filter, so GPT-2's 50k tokens never hold up the UI; typing in the search box waits for
a short pause before filtering.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Header, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from bpe_tui.messages import SessionChanged
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.text import counted, escape_token
from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.merge_tree import MergeTreeView
from bpe_tui.widgets.vocab_table import VocabRow, VocabTable, build_rows, filter_rows
from core.fingerprint import fingerprint
from core.model import CHAR_BASE
from core.analysis.merge_tree import MergeIndex
from core.analysis.ties import TiedMerge, Ties, tied_merges
from core.pretokenize.patterns import GPT2_PATTERN
from core.analysis.vocab_stats import longest_tokens, vocab_split

SEARCH_DELAY = 0.15
"""Seconds of quiet after a keystroke before the vocabulary is filtered."""

SEARCH_HINT = "search: text, id or hex bytes (0a, e3 81)  (/)"

LONGEST = 8
"""How many of the longest tokens to list."""


def summary_content(loaded: LoadedTokenizer, digest: str) -> Content:
    """Two lines: the vocabulary split, then fingerprint (and whether it went unchecked), pattern, special tokens
    and whether a run was stopped."""
    model = loaded.model
    split = vocab_split(model)
    parts: list[str | tuple[str, str]] = [
        (loaded.shown_name, "bold $readable-accent"),
        f"  {counted(model.vocab_size, 'token')} = {counted(split.byte_tokens, 'byte')} + "
        f"{counted(split.merges, 'merge')} + {counted(split.specials, 'special')}",
    ]
    if split.other:  # a character base's alphabet, or tokens a file from elsewhere carries
        parts.append(f" + {split.other:,} {'characters' if model.base == CHAR_BASE else 'other'}")
    pattern = "GPT-2" if model.pattern == GPT2_PATTERN else "custom"
    specials = ", ".join(escape_token(token) for token in model.special_tokens) or "none"
    parts += ["\n", ("fingerprint ", "dim"), digest[:16]]
    if model.fingerprint_verified is False:  # loaded from a file whose fingerprint key was deleted
        parts.append((" (unverified)", "$warning"))
    if model.normalizer is not None:  # Qwen2's NFC: the text is normalized before the pattern splits it
        parts += [("  normalizer ", "dim"), model.normalizer]
    parts += [("  pattern ", "dim"), pattern]
    parts += [("  specials ", "dim"), specials]
    if model.training is not None and model.training.stopped_after is not None:
        parts += [("  stopped by the user after ", "dim"), counted(model.training.stopped_after, "merge")]
    return Content.assemble(*parts)


def tie_entry(merge: TiedMerge) -> Content:
    """One tied merge: its rank, the pair joined, and the count it shared with the runner-up."""
    return Content.assemble(
        (f"#{merge.rank:<6} ", "dim"), escape_token(merge.left), (" + ", "dim"), escape_token(merge.right),
        (f"  {merge.count:,}", "dim"),
    )


def longest_entry(token_id: int, token: bytes) -> Content:
    """One of the longest tokens (from ``longest_tokens``): byte length, id and the token made safe."""
    return Content.assemble((f"{len(token):>3}b ", "dim"), (f"#{token_id:<6} ", "dim"), escape_token(token))


class InspectorScreen(PaneScreen):
    """Everything about the active tokenizer, and how any of its tokens was built."""

    AUTO_FOCUS = "#vocab-table"
    """Focused as the pane first shows, not after mounting: keys typed while it opens must not land in the search."""

    DEFAULT_CSS = """
    InspectorScreen {
        layout: vertical;
        #inspector-summary { height: 2; padding: 0 1; background: $panel; }
        #inspector-body { height: 1fr; }
        #inspector-main { width: 1fr; }
        #vocab-search { margin: 0 1; }
        #vocab-table { width: 100%; height: 1fr; border: round $primary-muted; }
        #vocab-table:focus { border: round $primary; }
        #inspector-side { width: 38%; min-width: 28; max-width: 64; }
        #merge-tree { height: 1fr; border: round $primary-muted; }
        #merge-tree:focus { border: round $primary; }
        #longest-tokens {
            height: auto; max-height: 10; border: round $primary-muted; padding: 0 1;
            background: $background; text-wrap: nowrap; text-overflow: ellipsis;
        }
        #longest-tokens:focus { border: round $primary; background-tint: $foreground 0%; }
        #tied-merges {
            display: none; height: auto; max-height: 10; border: round $primary-muted; padding: 0 1;
            background: $background; text-wrap: nowrap; text-overflow: ellipsis;
        }
        #tied-merges:focus { border: round $primary; background-tint: $foreground 0%; }
        &.-ties #tied-merges { display: block; }
        &.-ties #longest-tokens { display: none; }
    }
    """

    BINDINGS = [
        # A priority binding, so "/" is acted on as it arrives and the keys typed after it reach the
        # field; while the field has focus, check_action lets "/" through to it as text.
        Binding("slash", "search", "Search", priority=True),
        Binding("escape", "back_to_table", "Table", show=False),
        Binding("t", "focus_tree", "Merge tree"),
        Binding("l", "focus_longest", "Longest", tooltip="The longest tokens; Enter shows one's merge tree"),
        Binding("i", "focus_ties", "Ties", tooltip="Merges decided by the tie rule; Enter shows one's merge tree"),
    ]

    @dataclass
    class VocabularyBuilt(Message, bubble=False):
        """Rows, merge index and summary for one tokenizer are ready."""

        key: int
        rows: list[VocabRow]
        index: MergeIndex
        digest: str
        longest: list[tuple[int, bytes]]
        ties: Ties

    @dataclass
    class FilterApplied(Message, bubble=False):
        """A search finished: the row indices matching ``query``."""

        key: int
        query: str
        visible: list[int]

    @dataclass
    class BuildFailed(Message, bubble=False):
        """Building the table raised; shown as a notification."""

        reason: str

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._session = session
        self._loaded: LoadedTokenizer | None = None
        self._rows: list[VocabRow] = []
        self._index: MergeIndex | None = None
        self._specials: frozenset[bytes] = frozenset()
        self._search_timer: Timer | None = None
        self._pending_token: int | None = None
        """A token asked for (``show_token``) before the vocabulary was built; shown once it is."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="inspector-summary", markup=False)
        with Horizontal(id="inspector-body"):
            with Vertical(id="inspector-main"):
                yield Input(placeholder=SEARCH_HINT, id="vocab-search", compact=True)
                yield VocabTable(id="vocab-table")
            with Vertical(id="inspector-side"):
                yield MergeTreeView(id="merge-tree")
                yield OptionList(id="longest-tokens")
                yield OptionList(id="tied-merges")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#merge-tree").border_title = "merge tree"
        self.query_one("#longest-tokens").border_title = "longest tokens"
        self.query_one("#tied-merges").border_title = "ties"
        self.query_one("#vocab-table").border_title = "vocabulary"
        self._sync_tokenizer(force=True)

    def on_session_changed(self, message: SessionChanged) -> None:
        self._sync_tokenizer()

    def _sync_tokenizer(self, force: bool = False) -> None:
        loaded = self._session.active_tokenizer()
        if loaded is self._loaded and not force:
            return
        self._loaded = loaded
        self._rows, self._index = [], None
        table = self.query_one(VocabTable)
        table.set_rows([])
        tree = self.query_one(MergeTreeView)
        summary = self.query_one("#inspector-summary", Static)
        if loaded is None:
            summary.update(Content.styled("No tokenizer yet: train one in the corpus pane or open a file.", "dim"))
            tree.show_nothing("(no tokenizer)")
            self.query_one("#longest-tokens", OptionList).clear_options()
            self.query_one("#tied-merges", OptionList).clear_options()
            return
        summary.update(Content.assemble((loaded.shown_name, "bold $readable-accent"), ("  reading the vocabulary…", "dim")))
        tree.show_nothing("(building…)")
        self.query_one("#longest-tokens", OptionList).clear_options()
        self.query_one("#tied-merges", OptionList).clear_options()
        self._specials = frozenset(token.encode("utf-8") for token in loaded.model.special_tokens)
        self._build(loaded)

    # -- workers ---------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspector-build")
    def _build(self, loaded: LoadedTokenizer) -> None:
        try:
            index = MergeIndex(loaded.model)
            rows = build_rows(loaded.model, index)
            digest = fingerprint(loaded.model)
            longest = longest_tokens(loaded.model, LONGEST)
            ties = tied_merges(loaded.model)
        except Exception as error:  # noqa: BLE001 - shown as a notification, never a traceback
            self.post_message(self.BuildFailed(f"could not read the vocabulary: {error}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.VocabularyBuilt(id(loaded), rows, index, digest, longest, ties))

    @work(thread=True, exclusive=True, exit_on_error=False, group="inspector-filter")
    def _filter(self, key: int, rows: list[VocabRow], query: str) -> None:
        visible = filter_rows(rows, query)
        if not get_current_worker().is_cancelled:
            self.post_message(self.FilterApplied(key, query, visible))

    # -- results ---------------------------------------------------------------------------------------

    @on(VocabularyBuilt)
    def _show_vocabulary(self, message: VocabularyBuilt) -> None:
        if self._loaded is None or message.key != id(self._loaded):
            return
        self._rows, self._index = message.rows, message.index
        self.query_one("#inspector-summary", Static).update(summary_content(self._loaded, message.digest))
        longest = self.query_one("#longest-tokens", OptionList)
        longest.clear_options()
        if message.longest:
            longest.add_options(
                Option(longest_entry(token_id, token), id=str(token_id)) for token_id, token in message.longest
            )
        else:
            longest.add_option(Option(Content.styled("(empty vocabulary)", "dim"), disabled=True))
        self._show_ties(message.ties)
        table = self.query_one(VocabTable)
        table.set_rows(message.rows, self._specials)
        if self._pending_token is not None:
            token_id, self._pending_token = self._pending_token, None
            self.show_token(token_id)
            return
        first_merge = next((position for position, row in enumerate(message.rows) if row.rank is not None), None)
        if first_merge is not None:
            table.show_at_top(first_merge)  # start where there is a merge tree to show
        query = self.query_one("#vocab-search", Input).value
        if query:
            self._filter(message.key, self._rows, query)
        self._update_title()

    def _show_ties(self, ties: Ties) -> None:
        """Fill the ties list: every tied merge (its option id is the merged token's id), or why there are none."""
        listing = self.query_one("#tied-merges", OptionList)
        listing.clear_options()
        listing.border_title = f"ties {len(ties.tied):,} of {ties.recorded:,}" if ties.known else "ties unknown"
        if not ties.known:
            listing.add_option(Option(Content.styled(
                "This file records no runner-up counts (saved before bpe-tui recorded them, or another format).",
                "dim",
            ), disabled=True))
            return
        if not ties.tied:
            listing.add_option(Option(Content.styled("(no merge was a tie)", "dim"), disabled=True))
            return
        assert self._loaded is not None
        ids = {token: token_id for token_id, token in self._loaded.model.vocab.items()}
        listing.add_options(Option(tie_entry(merge), id=str(ids[merge.token])) for merge in ties.tied)

    def show_token(self, token_id: int) -> None:
        """Put the cursor on ``token_id``'s row (the search is cleared) and show its merge tree.

        The workbench's Enter on a token comes here; before the vocabulary is built the token waits.
        """
        self._sync_tokenizer()
        if not self._rows:
            self._pending_token = token_id
            return
        position = next((index for index, row in enumerate(self._rows) if row.id == token_id), None)
        if position is None:
            self.notify(f"Token {token_id} is not in {self._loaded.name if self._loaded else 'this tokenizer'}.")
            return
        if self._search_timer is not None:
            self._search_timer.stop()
        search = self.query_one("#vocab-search", Input)
        with search.prevent(Input.Changed):
            search.value = ""
        table = self.query_one(VocabTable)
        table.set_visible(list(range(len(self._rows))))
        table.show_at_top(position)
        self._update_title()
        self.set_focus(table)

    @on(FilterApplied)
    def _show_filtered(self, message: FilterApplied) -> None:
        if self._loaded is None or message.key != id(self._loaded):
            return
        if message.query != self.query_one("#vocab-search", Input).value:
            return  # typing went on; a newer filter is coming
        self.query_one(VocabTable).set_visible(message.visible)
        self._update_title()
        if not message.visible:
            self.query_one(MergeTreeView).show_nothing("(no token matches)")

    @on(BuildFailed)
    def _show_failure(self, message: BuildFailed) -> None:
        self.notify(message.reason, title="Inspector", severity="error")

    @on(VocabTable.RowHighlighted)
    def _show_tree(self, message: VocabTable.RowHighlighted) -> None:
        if self._index is None:
            return
        token = message.row.token
        self.query_one(MergeTreeView).show_node(self._index.tree(token), special=token in self._specials)

    @on(OptionList.OptionSelected, "#longest-tokens, #tied-merges")
    def _side_token_chosen(self, message: OptionList.OptionSelected) -> None:
        """Enter (or a click) on one of the longest tokens or tied merges: its merge tree, focused to be walked."""
        if self._index is None or self._loaded is None or message.option.id is None:
            return
        token = self._loaded.model.vocab.get(int(message.option.id))
        if token is None:
            return
        tree = self.query_one(MergeTreeView)
        tree.show_node(self._index.tree(token), special=token in self._specials)
        tree.focus()

    def _update_title(self) -> None:
        table = self.query_one(VocabTable)
        if table.visible_count == table.total_count:
            table.border_subtitle = f"{table.total_count:,} tokens"
        else:
            table.border_subtitle = f"{table.visible_count:,} of {table.total_count:,}"

    # -- input and actions -----------------------------------------------------------------------------

    @on(Input.Changed, "#vocab-search")
    def _search_changed(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DELAY, self._search_settled)

    def _search_settled(self) -> None:
        if self._loaded is not None and self._rows:
            self._filter(id(self._loaded), self._rows, self.query_one("#vocab-search", Input).value)

    @on(Input.Submitted, "#vocab-search")
    def _search_submitted(self) -> None:
        self.action_back_to_table()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "search" and isinstance(self.focused, Input):
            return None  # typing "/" in the field
        return True

    def action_search(self) -> None:
        # Focused now, not with focus(): keys typed right after "/" must reach the field (see Boundaries).
        self.set_focus(self.query_one("#vocab-search", Input))

    def action_back_to_table(self) -> None:
        self.query_one(VocabTable).focus()

    def action_focus_tree(self) -> None:
        self.query_one(MergeTreeView).focus()

    def action_focus_ties(self) -> None:
        self.add_class("-ties")
        ties = self.query_one("#tied-merges", OptionList)
        if ties.highlighted is None and ties.option_count:
            ties.highlighted = 0
        ties.focus()

    def action_focus_longest(self) -> None:
        self.remove_class("-ties")
        longest = self.query_one("#longest-tokens", OptionList)
        if longest.highlighted is None and longest.option_count:
            longest.highlighted = 0  # so Enter right away opens the longest token's tree
        longest.focus()
