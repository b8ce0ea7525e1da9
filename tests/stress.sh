#!/usr/bin/env bash
# Runs the tests that involve worker processes, signals or screens fed by a training source many times
# under CPU load, and reports every failure. Not run by CI: run it after any change to workers, signals
# or the training display, and before calling a race fixed.
#
#   bash tests/stress.sh [RUNS] [pytest selection ...]
#
# RUNS defaults to 50. Load is one busy process per core for the whole run. Each round's output goes to
# a log under $STRESS_LOGS (default: a temporary folder); the summary lists each failing test and how
# often it failed. Exit status 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
shift || true
python=${PYTHON:-.venv/bin/python}
selection=("$@")
if [ ${#selection[@]} -eq 0 ]; then
    selection=(
        tests/core/export/test_export_workers.py
        tests/core/export/test_word_exchange.py
        tests/core/train/test_worker_pool.py
        tests/core/train/test_shared_reading.py
        "tests/cli/test_cli_export.py::test_ctrl_c_leaves_nothing"
        "tests/cli/test_cli_train.py::test_sigint_while_merging_leaves_no_files"
        "tests/cli/test_cli_train.py::test_ctrl_c_to_the_process_group_while_reading_in_workers_is_one_line"
        tests/hostile/test_interrupts.py
        tests/ui/test_app_training.py
        tests/ui/test_app_owns_training.py
        tests/snapshots/test_snap_dashboard.py
        tests/test_benchmarks_smoke.py
        tests/core/train/test_dask_counting.py
        tests/core/export/test_export_shards.py
        tests/ui/test_lenses_fast_keys.py
        tests/ui/test_open_id_files.py
        tests/ui/test_gc_pauses.py
        tests/core/test_signals.py
        tests/core/export/test_corpus_digest_start.py
        tests/ui/test_app_termination.py
        tests/hostile/test_resource_limits.py
    )
fi
logs=${STRESS_LOGS:-$(mktemp -d -t bpe-tui-stress.XXXXXX)}
mkdir -p "$logs"

load=()
for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null' EXIT

failed_rounds=0
for round in $(seq "$runs"); do
    log="$logs/round-$round.log"
    if "$python" -m pytest -q -p no:cacheprovider -o console_output_style=classic "${selection[@]}" >"$log" 2>&1; then
        echo "round $round/$runs: passed"
    else
        failed_rounds=$((failed_rounds + 1))
        echo "round $round/$runs: FAILED ($log)"
        grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /'
    fi
done

echo
echo "$failed_rounds of $runs rounds failed under load ($(nproc) busy processes); logs in $logs"
if [ "$failed_rounds" -gt 0 ]; then
    grep -hE '^(FAILED|ERROR) ' "$logs"/round-*.log | sed 's/ - .*//' | sort | uniq -c | sort -rn
    exit 1
fi
