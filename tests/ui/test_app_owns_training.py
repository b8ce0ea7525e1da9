"""The app owns training: the corpus pane asks, the app runs the run and keeps its state, the dashboard draws it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label

from bpe_tui.app import BpeTuiApp
from bpe_tui.messages import TrainingChanged
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.training_spec import TrainingSpec
from bpe_tui.training_runner import TrainingRunner
from bpe_tui.training_state import TrainingState
from bpe_tui.widgets.merge_table import MergeTable
from core.encode.tokenizer import Tokenizer
from core.formats import load_tokenizer
from tests.ui.app_harness import (
    CORPUS_ROOT,
    SIZE,
    app_trained_by,
    make_app,
    recorded_run,
    replay_factory,
    settle,
)


@pytest.fixture
def dashboards(monkeypatch: pytest.MonkeyPatch) -> list[DashboardScreen]:
    """Every dashboard built during the test, in order."""
    built: list[DashboardScreen] = []
    init = DashboardScreen.__init__

    def counting_init(self: DashboardScreen, training: TrainingState) -> None:
        built.append(self)
        init(self, training)

    monkeypatch.setattr(DashboardScreen, "__init__", counting_init)
    return built


@pytest.fixture
def dashboard_mail(monkeypatch: pytest.MonkeyPatch) -> list[Message]:
    """Every message posted to a dashboard during the test."""
    mail: list[Message] = []
    post = Screen.post_message

    def spy(screen: Screen, message: Message) -> bool:
        if isinstance(screen, DashboardScreen):
            mail.append(message)
        return post(screen, message)

    monkeypatch.setattr(Screen, "post_message", spy)
    return mail


def phase_shown(dashboard: DashboardScreen) -> str:
    return str(dashboard.query_one("#phase", Label).content)


async def test_ctrl_t_asks_the_app_which_starts_the_run_without_the_dashboard(
    tmp_path: Path, dashboards: list[DashboardScreen], dashboard_mail: list[Message]
) -> None:
    recorded = replay_factory(recorded_run())
    dashboards_when_started: list[int] = []

    def factory(spec: TrainingSpec):
        dashboards_when_started.append(len(dashboards))
        return recorded(spec)

    seen: list[Message] = []
    app = app_trained_by(factory, corpus_root=tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        # The hook sees the request twice, on the corpus pane and again when it bubbles up to the app.
        requests = list({id(m): m for m in seen if isinstance(m, CorpusScreen.TrainingRequested)}.values())
        assert len(requests) == 1 and requests[0].spec.corpus_path == CORPUS_ROOT / "story.txt"
        # The app made the run's source before any dashboard existed: the corpus pane's request went to it.
        assert recorded.specs == [requests[0].spec] and dashboards_when_started == [0]
        assert app.training.spec == requests[0].spec and not app.training.running
        finished = [m for m in seen if isinstance(m, TrainingRunner.Finished)]
        assert len(finished) == 1 and app.session.active_tokenizer() is finished[0].loaded
        # The dashboard was shown afterwards, and heard nothing but the app's notices.
        assert app.current_mode == "dashboard" and len(dashboards) == 1
        assert any(isinstance(m, TrainingChanged) for m in dashboard_mail)
        assert not [m for m in dashboard_mail if isinstance(m, TrainingRunner.RunMessage)]
        dashboard = dashboards[0]
        assert phase_shown(dashboard) == "done" and dashboard.query_one(MergeTable).row_count > 0
        # The finished run opens no dialog; ctrl+s on the dashboard asks the app, which asks where to save.
        assert app.screen is dashboard
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is dashboard
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        await pilot.press("enter")
        await settle(pilot)
        saved = [m for m in seen if isinstance(m, BpeTuiApp.Saved)]
        assert len(saved) == 1 and saved[0].path == tmp_path / "story-400.json"
        assert load_tokenizer(saved[0].path).merges == finished[0].model.merges
        assert app.session.active_tokenizer().source == saved[0].path  # type: ignore[union-attr]


async def test_the_finished_tokenizer_is_built_off_the_ui_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[int, Tokenizer]] = []
    from_model = Tokenizer.from_model

    def recording(cls: type[Tokenizer], model: object) -> Tokenizer:
        tokenizer = from_model(model)  # type: ignore[arg-type]
        built.append((threading.get_ident(), tokenizer))
        return tokenizer

    monkeypatch.setattr(Tokenizer, "from_model", classmethod(recording))
    seen: list[Message] = []
    app = make_app(train_on_start=True, start_mode=None)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        ui_thread = threading.get_ident()
        finished = [m for m in seen if isinstance(m, TrainingRunner.Finished)]
        assert len(finished) == 1
        tokenizer = finished[0].loaded.tokenizer
        assert isinstance(tokenizer, Tokenizer)  # the message arrives holding it, ready to use
        threads = [thread for thread, made in built if made is tokenizer]
        assert len(threads) == 1 and threads[0] != ui_thread
        assert app.session.active_tokenizer() is finished[0].loaded


async def test_a_run_that_ended_behind_another_pane_is_drawn_when_the_dashboard_opens(
    dashboards: list[DashboardScreen],
) -> None:
    app = make_app(train_on_start=True, start_mode="corpus")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.current_mode == "corpus" and dashboards == []
        loaded = app.session.active_tokenizer()
        assert loaded is not None and loaded.name.startswith("trained: samples")
        assert app.training.outcome is not None and not app.training.running
        await pilot.press("2")
        await settle(pilot)
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen) and dashboards == [dashboard]
        assert phase_shown(dashboard) == "done"
        assert dashboard.query_one(MergeTable).row_count > 0
        assert dashboard.check_action("save", ()) and dashboard.check_action("restart", ())
        assert not dashboard.check_action("stop", ())


async def test_a_run_again_with_the_same_settings_has_a_name_of_its_own() -> None:
    # Both were "trained: story.txt 400": the palette's "Use tokenizer" entries and Compare's list showed
    # the same name twice.
    app = make_app(train_on_start=True, start_mode=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        names = [loaded.name for loaded in app.session.tokenizers]
        assert len(names) == 2 and names[1] == f"{names[0]} (2)"
        trained = app.training.trained
        assert trained is not None and trained.loaded is app.session.tokenizers[1]  # what ctrl+s saves and renames
        app.session.set_active(0)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        assert f"{names[0]} (2)" in str(app.screen.query_one("#path-title", Label).render())
