"""Passage embedding throughput and peak memory of OnnxEmbedder.

Embeds synthetic ~400-token English passages with a profile's ONNX graph at several sub-batch
sizes and onnxruntime thread counts, each configuration in a fresh child process so its peak
RSS is its own. A plain reference in the same run (one text per onnxruntime call, numpy mean
pooling) gives the baseline speed and checks the vectors agree.

    python benchmarks/embed.py                       # default model, quick
    python benchmarks/embed.py --max-tokens 512      # embed the whole ~400 tokens
    python benchmarks/embed.py --batch-sizes 1,8,32 --threads 1,2 --passages 96 --json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

import numpy as np

from gezel_knowledge.embedders import OnnxEmbedder, load_embedder
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, EmbeddingProfile, embedding_profile

_VOCABULARY = (
    "catalog index search passage vector model token embedding query reader compiler shard "
    "router signature archive manifest license publisher version document topic heading "
    "install verify cite reference offline local portable memory workspace content chunk "
    "the a of and to in is that for with as on by this be are from or at which an it not "
    "river mountain history science language music physics chemistry biology economics law"
)


def _passages(
    profile: EmbeddingProfile, count: int, tokens: int, model_dir: str | None
) -> list[str]:
    """Deterministic word salad, each passage cut to at most ``tokens`` tokens."""
    tokenizer = load_embedder(profile, model_dir=model_dir).tokenizer
    vocabulary = _VOCABULARY.split()
    rng = np.random.default_rng(1234)
    out: list[str] = []
    for _ in range(count):
        words = [str(w) for w in rng.choice(vocabulary, size=tokens)]
        text = " ".join(words)
        while tokenizer.count(text) > tokens:
            words.pop()
            text = " ".join(words)
        out.append(text.capitalize() + ".")
    return out


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _child(config: dict[str, Any]) -> dict[str, Any]:
    profile = embedding_profile(config["profile"])
    if config["max_tokens"]:
        profile = replace(profile, max_tokens=config["max_tokens"])
    passages = _passages(profile, config["passages"], config["tokens"], config["model_dir"])
    batch = config["batch"]
    # batch -1: the embedder's own defaults (DEFAULT_BATCH_SIZE texts, DEFAULT_MAX_BATCH_TOKENS);
    # otherwise exactly ``batch`` texts per run, whatever their length.
    sizing = (
        {}
        if batch == -1
        else {"batch_size": max(1, batch), "max_batch_tokens": max(1, batch) * profile.max_tokens}
    )
    embedder = load_embedder(
        profile, model_dir=config["model_dir"], threads=config["threads"], **sizing
    )
    assert isinstance(embedder, OnnxEmbedder)
    embedder.load()
    embedder.embed_passages(passages[:2])  # warm-up: first-run allocations
    timings = []
    cpu = []
    for _ in range(config["repeat"]):
        start, start_cpu = time.perf_counter(), time.process_time()
        vectors = (
            _reference(embedder, passages) if batch == 0 else embedder.embed_passages(passages)
        )
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    # The cores are shared; the median of a few runs is steadier than one run, and CPU time
    # (all threads of this process) is steadier than wall time when other jobs compete.
    seconds = float(np.median(timings))
    cpu_seconds = float(np.median(cpu))
    lengths = [min(len(ids), profile.max_tokens) for ids in _ids(embedder, passages)]
    return {
        "mode": {0: "reference", -1: "defaults"}.get(batch, "onnx-embedder"),
        "batch": batch,
        "threads": config["threads"],
        "passages": len(passages),
        "mean_tokens": float(np.mean(lengths)),
        "seconds": seconds,
        "passages_per_s": len(passages) / seconds,
        "cpu_ms_per_passage": 1000.0 * cpu_seconds / len(passages),
        "peak_rss_mib": _peak_rss_mib(),
        "vectors": vectors.tolist(),
    }


def _ids(embedder: OnnxEmbedder, texts: list[str]) -> list[list[int]]:
    return embedder.tokenizer.model_inputs(texts).ids


def _reference(embedder: OnnxEmbedder, texts: list[str]) -> np.ndarray:
    """The plain way: one text per session run, numpy mean pooling, L2 normalisation."""
    session = embedder._session  # the same loaded graph, so only the batching differs
    assert session is not None
    names = {i.name for i in session.get_inputs()}
    out = []
    for ids in _ids(embedder, texts):
        row = np.asarray([ids], dtype=np.int64)
        feed = {"input_ids": row, "attention_mask": np.ones_like(row)}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(row)
        feed = {k: v for k, v in feed.items() if k in names}
        (hidden,) = session.run(None, feed)[:1]
        pooled = np.asarray(hidden)[0].mean(axis=0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.asarray(out, dtype=np.float32)


def _run_child(config: dict[str, Any]) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(config)],
        check=True,
        capture_output=True,
        text=True,
    )
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default=ALL_MINILM_L6_V2_INT8_1.id, help="profile id")
    parser.add_argument("--model-dir", default=None, help="explicit model directory")
    parser.add_argument("--passages", type=int, default=48, help="passages per run")
    parser.add_argument("--tokens", type=int, default=400, help="tokens per passage")
    parser.add_argument(
        "--max-tokens", type=int, default=0, help="override the profile's maxTokens"
    )
    parser.add_argument("--batch-sizes", default="1,8,32", help="comma-separated sub-batch sizes")
    parser.add_argument("--threads", default="1,2", help="comma-separated intra-op thread counts")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per configuration")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return 0

    base = {
        "profile": args.profile,
        "model_dir": args.model_dir,
        "passages": args.passages,
        "tokens": args.tokens,
        "max_tokens": args.max_tokens,
        "repeat": args.repeat,
    }
    threads = [int(t) for t in args.threads.split(",")]
    batches = [int(b) for b in args.batch_sizes.split(",")]
    rows: list[dict[str, Any]] = []
    reference: dict[int, np.ndarray] = {}
    for t in threads:
        ref = _run_child({**base, "threads": t, "batch": 0})
        reference[t] = np.asarray(ref.pop("vectors"), dtype=np.float32)
        ref["max_abs_diff"] = 0.0
        rows.append(ref)
        for b in [*batches, -1]:
            row = _run_child({**base, "threads": t, "batch": b})
            vectors = np.asarray(row.pop("vectors"), dtype=np.float32)
            row["max_abs_diff"] = float(np.abs(vectors - reference[t]).max())
            row["speedup"] = row["passages_per_s"] / ref["passages_per_s"]
            rows.append(row)
    if args.json:
        print(json.dumps({"config": base, "rows": rows}, indent=2))
        return 0
    print(
        f"profile {args.profile}, {args.passages} passages of ~{args.tokens} tokens "
        f"(embedded: {rows[0]['mean_tokens']:.0f} tokens incl. specials)"
    )
    print(
        f"{'mode':<14}{'threads':>8}{'batch':>7}{'passages/s':>12}{'vs ref':>8}"
        f"{'CPU ms/passage':>16}{'peak RSS MiB':>14}{'max |diff|':>12}"
    )
    for row in rows:
        speed = f"{row.get('speedup', 1.0):.2f}x"
        print(
            f"{row['mode']:<14}{row['threads']:>8}{row['batch'] if row['batch'] > 0 else '-':>7}"
            f"{row['passages_per_s']:>12.1f}{speed:>8}{row['cpu_ms_per_passage']:>16.1f}"
            f"{row['peak_rss_mib']:>14.0f}"
            f"{row['max_abs_diff']:>12.1e}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
