"""Training from the corpus pane with the real training process: finish and save, cancel, bad input."""

from __future__ import annotations

import random
import time
from pathlib import Path

import psutil
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Input

from bpe_tui.app import BpeTuiApp
from bpe_tui.recent_files import recent_file
from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.services import Services
from bpe_tui.session import LoadedTokenizer
from bpe_tui.training_runner import TrainingRunner
from core.formats import load_tokenizer
from tests.ui.app_harness import SAMPLES, SIZE, FrozenProbe, make_app, make_session, own_recent_store, settle


def real_services(root: Path) -> Services:
    """The real training process and clock; the tree root (and save folder) is a temporary one, and so is the
    recent-files list: a run's corpus went into the user's own list, offered back by the path box's ↑."""
    return Services(corpus_root=root, probe_factory=lambda pid: FrozenProbe(pid), recent_store=own_recent_store())


def test_real_services_keep_their_own_recent_list(tmp_path: Path) -> None:
    assert real_services(tmp_path).recent_store != recent_file()


async def wait_for(pilot: Pilot, seen: list[Message], kind: type, timeout: float = 30.0) -> list:
    """Pump the app until a message of ``kind`` has been handled (the run ends in another process)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [m for m in seen if isinstance(m, kind)]
        if found:
            await pilot.pause()
            return found
        await pilot.pause(0.05)
    raise AssertionError(f"no {kind.__name__} within {timeout} s")


async def wait_for_state(pilot: Pilot, condition, what: str, timeout: float = 60.0) -> None:
    """Pump the app until ``condition()`` holds (it reads state the app's handlers set)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        await pilot.pause(0.05)


def errors(seen: list[Message]) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.severity == "error"]


async def set_field(pilot: Pilot, field_id: str, value: str) -> None:
    field = pilot.app.screen.query_one(f"#{field_id}", Input)
    field.focus()
    field.value = value
    await pilot.pause()


def corpus_app(corpus: Path, folder: Path):
    """The app on the corpus pane with ``corpus`` chosen and ``folder`` as working directory."""
    return make_app(session=make_session(corpus), services=real_services(folder))


async def train(pilot: Pilot, vocab: int, workers: int | None = None) -> None:
    """Fill in the corpus pane's form and start training, as a user would."""
    await settle(pilot)
    await set_field(pilot, "vocab", str(vocab))
    if workers is not None:
        await set_field(pilot, "workers", str(workers))
    await pilot.press("ctrl+t")


async def test_train_on_a_sample_then_save(tmp_path: Path) -> None:
    corpus = tmp_path / "english.txt"
    corpus.write_bytes((SAMPLES / "english.txt").read_bytes())
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await train(pilot, 320)
        finished = await wait_for(pilot, seen, TrainingRunner.Finished)
        assert app.current_mode == "dashboard"
        model = finished[0].model
        assert model.vocab_size == 320 and len(model.merges) == 320 - 257
        loaded = app.session.active_tokenizer()
        assert loaded is not None and loaded.model is model and loaded.source is None
        # Finishing opens nothing; ctrl+s asks where to save, offering <corpus stem>-<vocab>.json in the
        # working directory.
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        assert app.screen.query_one(Input).value == str(tmp_path / "english-320.json")
        await pilot.press("enter")
        await wait_for(pilot, seen, BpeTuiApp.Saved)
        saved = tmp_path / "english-320.json"
        assert load_tokenizer(saved).merges == model.merges
        assert app.session.active_tokenizer().source == saved
        assert not errors(seen)


def big_corpus(path: Path, megabytes: float) -> Path:
    """Random words over 26 letters: so many distinct pairs that training to a big vocab takes many seconds."""
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(60_000)]
    lines = []
    size = 0
    while size < megabytes * 1_000_000:
        line = " ".join(rng.choice(words) for _ in range(12)) + "\n"
        lines.append(line)
        size += len(line)
    path.write_text("".join(lines), encoding="utf-8")
    return path


async def test_cancel_mid_run_kills_the_process_and_writes_nothing(tmp_path: Path) -> None:
    corpus = big_corpus(tmp_path / "big.txt", 2)
    before = set(tmp_path.iterdir())
    seen: list[Message] = []
    # A tokenizer is already showing, so that the stopped run's must join without replacing it.
    session = make_session(corpus)
    shown = LoadedTokenizer.from_model(load_tokenizer(SAMPLES / "gpt2" / "vocab.json"), source=SAMPLES / "gpt2" / "vocab.json")
    session.add_tokenizer(shown)
    app = make_app(session=session, services=real_services(tmp_path))
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await train(pilot, 30000, workers=2)
        # Stop once merges have arrived, so the run always has some to keep (stopping during reading is
        # the dashboard tests' case).
        await wait_for_state(pilot, lambda: bool(app.training.merges), "the first merges")
        ended = [m for m in seen if isinstance(m, TrainingRunner.Ended)]
        assert isinstance(app.screen, DashboardScreen) and app.training.running, ended
        pid = app.runner.pid
        assert pid is not None
        family = [psutil.Process(pid)] + psutil.Process(pid).children(recursive=True)
        await pilot.press("s")
        # Killed, not waited for: the run would take far longer than this, and no Finished may come.
        stopped = await wait_for(pilot, seen, TrainingRunner.Stopped, timeout=60)
        assert not [m for m in seen if isinstance(m, TrainingRunner.Finished)]
        for process in family:
            assert not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
        assert not app.training.running and stopped[0].spec.corpus_path == corpus
        assert app.runner.pid is None  # an ended run is never signalled again
        assert set(tmp_path.iterdir()) == before  # nothing saved, nothing partial
        # The merges received so far are kept as a tokenizer ctrl+s would save, without becoming active.
        merges_done = stopped[0].merges_done
        assert merges_done == len(app.training.merges) > 0
        assert len(app.session.tokenizers) == 2 and app.session.active_tokenizer() is shown
        assert app.training.trained is not None and app.training.trained.session_index == 1
        assert app.training.trained.loaded.model.merges == [(m.left, m.right) for m in app.training.merges]
        # "Run again" is offered once the run has stopped, and starts a fresh run.
        seen.clear()
        await pilot.press("r")
        await pilot.pause()
        assert app.training.run == stopped[0].run + 1 and app.training.running
        progressed = await wait_for(pilot, seen, TrainingRunner.Progressed)
        assert progressed[0].run == app.training.run
        await pilot.press("s")
        stopped_again = await wait_for(pilot, seen, TrainingRunner.Stopped, timeout=60)
        assert stopped_again[0].run == app.training.run and not app.training.running


async def test_bad_settings_are_reported_not_run(tmp_path: Path) -> None:
    seen: list[Message] = []
    app = corpus_app(SAMPLES / "toy.txt", tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await train(pilot, 12)
        await pilot.pause()
        assert any("vocab size" in message for message in errors(seen))
        assert not [m for m in seen if isinstance(m, TrainingRunner.Started)]
        assert app.current_mode == "corpus"


async def test_a_corpus_the_trainer_rejects_fails_with_a_notification(tmp_path: Path) -> None:
    corpus = tmp_path / "broken.txt"
    corpus.write_bytes(b"fine text \xff\xfe broken bytes\n")
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await train(pilot, 300)
        failed = await wait_for(pilot, seen, TrainingRunner.Failed)
        assert "broken.txt" in failed[0].message
        assert errors(seen)
        assert app.session.tokenizers == []


async def test_quitting_mid_run_leaves_no_process_behind(tmp_path: Path) -> None:
    corpus = big_corpus(tmp_path / "big.txt", 2)
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await train(pilot, 30000)
        await wait_for(pilot, seen, TrainingRunner.Progressed)
        pid = app.runner.pid
        family = [psutil.Process(pid)] + psutil.Process(pid).children(recursive=True)
        await pilot.press("ctrl+q")
    gone, alive = psutil.wait_procs(family, timeout=30)
    assert all(p.status() == psutil.STATUS_ZOMBIE for p in alive), alive
