"""The app's panes, in key order: the key that opens each, its mode name, its title and its screen class.

A module of its own so that the app, the help screen and the command palette can all read the list
without the help screen importing the app (which imports the help screen).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.screen import Screen

from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.compare import CompareScreen
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.screens.lenses import LensesScreen
from bpe_tui.screens.stepper import StepperScreen
from bpe_tui.screens.study import StudyScreen


@dataclass(frozen=True)
class Pane:
    """A pane of the app: the key that opens it, its mode name, what it is called and its screen class."""

    key: str
    mode: str
    title: str
    screen: type[Screen]
    description: str


PANES: tuple[Pane, ...] = (
    Pane("1", "corpus", "Corpus", CorpusScreen, "Pick a corpus and train"),
    Pane("2", "dashboard", "Training", DashboardScreen, "Watch a training run"),
    Pane("3", "stepper", "Stepper", StepperScreen, "Step through merges"),
    Pane("4", "boundaries", "Boundaries", BoundariesScreen, "See token boundaries"),
    Pane("5", "inspector", "Inspector", InspectorScreen, "Inspect a tokenizer"),
    Pane("6", "compare", "Compare", CompareScreen, "Compare tokenizers"),
    Pane("7", "lenses", "Lenses", LensesScreen, "Lessons of tokenisation, live on the active tokenizer"),
    Pane("8", "study", "Study", StudyScreen, "Compare vocabulary sizes"),
)
