"""``benchmarks/ui_latency.py`` keeps working as the app changes: the text it waits for is what the panes
show, its phase pattern reads the dashboard's phase line, and its percentiles are nearest-rank ones.

No latency is measured here (that is the benchmark's job, on a real terminal, and no test may time it).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from textual.widgets import Label

from bpe_tui.widgets.progress_panel import PHASE_LABELS
from tests.ui.app_harness import SIZE, app_trained_by, recorded_run, replay_factory, settle

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("bpe_bench_ui_latency", BENCH / "ui_latency.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_percentiles_are_nearest_rank() -> None:
    bench = load_benchmark()
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert bench.percentile(values, 50) == 10.0 and bench.percentile(values, 95) == 19.0
    assert bench.percentile([7.0], 95) == 7.0 and bench.percentile([], 50) is None
    table = bench.summary([{"phase": "idle", "ms": 5.0}, {"phase": "merging", "ms": 9.0}])
    assert table["idle"] == {"n": 1, "p50_ms": 5.0, "p95_ms": 5.0, "max_ms": 5.0}
    assert table["reading"]["n"] == 0


def test_every_phase_the_dashboard_shows_is_read() -> None:
    bench = load_benchmark()
    # Every label a run can show ("idle" is the dashboard before any run, which the benchmark never reads).
    for label in [*(v for k, v in PHASE_LABELS.items() if k != "idle"), "starting", "done", "stopped", "failed"]:
        line = f"│ {label:<16}━━━━━━━━━━━━━━━━  42%        ETA 3.0 s │"
        assert bench.phase_of(f"header\n{line}\n") == label


async def test_the_text_it_waits_for_is_on_each_pane() -> None:
    bench = load_benchmark()
    app = app_trained_by(replay_factory(recorded_run()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key, marker in bench.PANES.items():
            await pilot.press(key)
            await settle(pilot)
            titles = [str(widget.border_title) for widget in app.screen.query("*") if widget.border_title]
            assert marker in titles, (key, titles)
        await pilot.press("1", "ctrl+t")
        await settle(pilot)
        phase = str(app.screen.query_one("#phase", Label).content)
        assert bench.phase_of(f"│ {phase:<16}━━━━ 100%") == phase == "done"
