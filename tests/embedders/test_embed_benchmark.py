"""``benchmarks/embed.py`` runs on the default model and agrees with its plain reference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "embed.py"


def test_embed_benchmark_small_run_reports_the_share_of_the_plain_loop() -> None:
    args = ["--passages", "5", "--shortest", "3", "--longest", "40", "--plain-batches", "2"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--rounds", "2", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    rows = {row["config"]: row for row in result["rows"]}
    assert set(rows) == {"plain batch 2", "plain batch 2 no-spin", "embedder defaults"}
    assert result["reference"].startswith("plain batch")
    assert rows[result["reference"]]["share_of_reference"] == 1.0
    assert result["goal"] == 0.9
    assert result["share"] == rows["embedder defaults"]["share_of_reference"]
    assert isinstance(result["met_wall"], bool)
    assert isinstance(result["met_cpu"], bool)
    low, high = result["share_quartiles"]
    assert low <= result["share"] <= high
    for row in rows.values():
        assert len(row["wall_s"]) == len(row["cpu_s"]) == 2
        assert isinstance(row["passages_per_s"], float)
        # Same graph, same tokenizer, same pooling: the same vectors, whatever the batching.
        assert row["max_abs_diff"] < 1e-5
    setup = result["setup"]
    assert setup["passages"] == 5
    assert 4 <= setup["mean_tokens"] <= 45
    assert setup["usable_cores"] >= 1
    assert len(setup["load_average_before"]) == 3


def test_embed_benchmark_has_help() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=True
    )
    assert "--plain-batches" in done.stdout
    assert "--json" in done.stdout
