"""The key footer keeps its key widgets across pane switches, and still follows every change of the keys.

Rebuilding them on each switch was a large part of what a pane switch cost (see
``bpe_tui/widgets/key_footer.py``); a footer that skipped a rebuild it needed would show stale keys.
"""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from bpe_tui.widgets.key_footer import KeyFooter
from tests.ui.app_harness import SIZE, app_trained_by, recorded_run, replay_factory, settle


def footer_keys(app) -> list[FooterKey]:
    return list(app.screen.query_one(KeyFooter).query(FooterKey))


async def test_switching_panes_keeps_the_key_widgets() -> None:
    app = app_trained_by(replay_factory(recorded_run()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        corpus_keys = footer_keys(app)
        assert "ctrl+t" in [key.key for key in corpus_keys]
        await pilot.press("2")
        await settle(pilot)
        dashboard_keys = footer_keys(app)
        await pilot.press("1")
        await settle(pilot)
        assert [id(key) for key in footer_keys(app)] == [id(key) for key in corpus_keys]
        await pilot.press("2")
        await settle(pilot)
        assert [id(key) for key in footer_keys(app)] == [id(key) for key in dashboard_keys]


async def test_the_footer_follows_keys_that_appear() -> None:
    app = app_trained_by(replay_factory(recorded_run()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert "r" not in [key.key for key in footer_keys(app)]  # nothing to run again yet
        await pilot.press("1", "ctrl+t")  # the recorded run plays back at once; the app shows the dashboard
        await settle(pilot)
        assert app.current_mode == "dashboard"
        shown = {key.key: key for key in footer_keys(app)}
        assert "r" in shown and "ctrl+s" in shown
        assert shown["r"].description == "Run again"


async def test_announcements_before_the_next_refresh_rebuild_the_footer_once_and_cheaply(monkeypatch) -> None:
    app = app_trained_by(replay_factory(recorded_run()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        rebuilds: list[int] = []
        real = KeyFooter.recompose

        async def counting(self: KeyFooter) -> None:
            rebuilds.append(id(self))
            await real(self)

        monkeypatch.setattr(KeyFooter, "recompose", counting)
        restyled_keys: list[FooterKey] = []
        real_update = FooterKey.update_node_styles

        def restyle(self: FooterKey, animate: bool = True) -> None:
            restyled_keys.append(self)
            real_update(self, animate=animate)

        monkeypatch.setattr(FooterKey, "update_node_styles", restyle)
        footer._composed_for = None  # as if the keys had changed: the next announcement must rebuild
        for _ in range(5):  # a pane shown, focus moving, a run starting: each announces the bindings
            app.screen.bindings_updated_signal.publish(app.screen)
        await settle(pilot)
        assert rebuilds == [id(footer)]
        assert "ctrl+t" in [key.key for key in footer_keys(app)]
        assert restyled_keys == [], "new key widgets were restyled one by one as they mounted"
        app.screen.bindings_updated_signal.publish(app.screen)  # the same keys again: nothing to rebuild
        await settle(pilot)
        assert rebuilds == [id(footer)]
