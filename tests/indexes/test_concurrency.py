"""Several processes indexing one workspace at once serialise: none fails, every file is
indexed once (issue 17 item 6)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.indexes.helpers import write_tree

_INDEXER = textwrap.dedent(
    """
    import pathlib, sys, time
    from gezel_knowledge.embedders import HashEmbedder
    from gezel_knowledge.indexes import index_workspace

    # Start together: announce readiness, then wait for the go.
    pathlib.Path(sys.argv[3] + ".ready").write_text("")
    while not pathlib.Path(sys.argv[3]).parent.joinpath("go").exists():
        time.sleep(0.005)
    report = index_workspace(sys.argv[1], home=sys.argv[2], embedder=HashEmbedder())
    print(len(report.structure.processed))
    """
)


def test_concurrent_indexers_of_one_workspace_all_succeed(tmp_path: Path) -> None:
    # Before: 1-3 of 4 processes died with "UNIQUE constraint failed: files.path".
    workspace = tmp_path / "ws"
    write_tree(
        workspace,
        {
            f"pkg/module_{i:02d}.py": f'"""Module {i}."""\n\n\ndef f{i}(x):\n    return x + {i}\n'
            for i in range(150)
        }
        | {
            f"docs/page_{i:02d}.md": f"# Page {i}\n\nSome words about topic {i}.\n"
            for i in range(150)
        },
    )
    script = tmp_path / "indexer.py"
    script.write_text(_INDEXER, encoding="utf-8")
    home = tmp_path / "home"
    gate = tmp_path / "gate"
    gate.mkdir()
    processes = [
        subprocess.Popen(
            [sys.executable, str(script), str(workspace), str(home), str(gate / str(n))],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    deadline = time.monotonic() + 300
    while len(list(gate.glob("*.ready"))) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    (gate / "go").write_text("")
    results = [p.communicate(timeout=600) for p in processes]
    failures = [err for p, (_, err) in zip(processes, results, strict=True) if p.returncode]
    assert failures == []
    # Serialised: one process indexed every file, the others found nothing to do.
    processed = sorted(int(out.strip()) for out, _ in results)
    assert processed == [0, 0, 0, 300]
    (database,) = home.rglob("content.db")
    conn = sqlite3.connect(database)
    paths = [r[0] for r in conn.execute("SELECT path FROM files")]
    conn.close()
    assert len(paths) == len(set(paths)) == 300
