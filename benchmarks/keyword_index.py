"""Building a shard's derived keyword index: CPU time and peak memory (issue 22: at most 10 s of
CPU and 256 MiB per 100,000 passages), and its size beside the shard's FTS5 tables.

``python benchmarks/keyword_index.py CATALOG_DIR [--shard N]`` builds the shard's index in this
process (stemmed by the manifest language, as the reader does; nothing is written) and prints
the CPU seconds, the process's peak resident memory (``VmHWM``) before and after, the index's
bytes and the FTS5 tables' bytes. Run it in a fresh process per measurement (the peak is the
process's own). ``benchmarks/hybrid.py`` prints the build of its catalogs' indexes too.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

from gezel_knowledge.reader import open_extracted
from gezel_knowledge.reader._kwcache import build_connection
from gezel_knowledge.reader._kwindex import build_index
from gezel_knowledge.stemming import stemmer_for


def _peak_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    """Build one shard's index and print the figures (JSON)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--shard", type=int, default=0)
    args = parser.parse_args(argv)
    with open_extracted(args.catalog) as catalog:
        shard = catalog.shards[args.shard]
        path = catalog.root.joinpath(*shard.path.split("/"))
        language = catalog.manifest.language
    stem = stemmer_for(language)
    conn = build_connection(path)
    (fts_bytes,) = conn.execute(
        "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'fts_chunks%'"
    ).fetchone()
    before = _peak_mib()
    started = time.process_time()
    built = build_index(conn, stem)
    cpu = time.process_time() - started
    after = _peak_mib()
    index_bytes = (
        sum(
            a.nbytes
            for a in (built.lengths, built.offsets, built.max_parts, built.checks, built.docs)
        )
        + built.freqs.nbytes
        + sum(len(k.encode()) + 8 for k in built.keys)
    )
    per = 100_000 / max(1, shard.chunk_count)
    print(
        json.dumps(
            {
                "passages": shard.chunk_count,
                "language": language,
                "stemmed": stem is not None,
                "cpu_s": round(cpu, 2),
                "cpu_s_per_100k": round(cpu * per, 2),
                "peak_mib_before": round(before, 1),
                "peak_mib_after": round(after, 1),
                "build_peak_mib_per_100k": round((after - before) * per, 1),
                "index_mib": round(index_bytes / 2**20, 1),
                "fts5_mib": round(int(fts_bytes) / 2**20, 1),
                "keys": len(built.keys),
                "postings": int(built.docs.shape[0]),
                "load": [round(x, 2) for x in os.getloadavg()],
            }
        )
    )
    conn.close()
    return 0


if __name__ == "__main__":
    sqlite3.enable_callback_tracebacks(True)
    sys.exit(main())
