"""NO_COLOR set: Textual draws every line through its ``Monochrome`` filter, which needs a style on each segment.

A terminal user with ``NO_COLOR`` in their environment (a common setting) saw the app crash on the first
visit to the workbench: the token view ended each line with a segment that had no style.
"""

from __future__ import annotations

from textual.filter import Monochrome

from tests.ui.app_harness import SIZE, app_trained_by, ready, recorded_run, replay_factory


async def test_every_pane_draws_under_no_color(monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_trained_by(replay_factory(recorded_run()), train_on_start=True)
    assert any(isinstance(f, Monochrome) for f in app._filters)  # what NO_COLOR turns on
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.training.trained is not None
        # Every pane, then the workbench's views: typed text, ids, English beside Japanese, the samples.
        for key in (*"2345678", "4", "/", *"hi あ", "escape", "i", "v", "v", "s", "5", "3", "t", "6"):
            await pilot.press(key)
            await ready(pilot)
            assert app._exception is None, f"after {key!r}: {app._exception!r}"
        assert app.current_mode == "compare"
