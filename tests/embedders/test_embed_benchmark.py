"""``benchmarks/embed.py`` runs on the default model and agrees with its plain reference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "embed.py"


def test_embed_benchmark_small_run_reports_every_configuration() -> None:
    args = ["--passages", "3", "--tokens", "40", "--batch-sizes", "2", "--threads", "1"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--repeat", "1", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(done.stdout)["rows"]
    assert [(r["mode"], r["batch"], r["threads"]) for r in rows] == [
        ("reference", 0, 1),
        ("onnx-embedder", 2, 1),
        ("defaults", -1, 1),
    ]
    for row in rows:
        assert row["passages"] == 3
        assert 30 <= row["mean_tokens"] <= 43  # 40 + "." + [CLS] + [SEP]
        assert row["passages_per_s"] > 0
        assert row["peak_rss_mib"] > 0
        assert row["max_abs_diff"] < 1e-5


def test_embed_benchmark_has_help() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=True
    )
    assert "--batch-sizes" in done.stdout
    assert "--json" in done.stdout
