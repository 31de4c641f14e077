from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from gezel_knowledge.cli import build_parser, main
from gezel_knowledge.cli._output import excerpt, plural, print_json
from gezel_knowledge.conformance import load_kit as bundled
from tests.conftest import load_kit

GROUPS = [
    "formatVersion",
    "chunkUid",
    "contentHash",
    "quantization",
    "jcs",
    "uri",
    "uriFormat",
    "hamming",
    "hashEmbedder",
    "signature",
    "spatial",
]


def test_bundled_kit_passes_every_fixture_free_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors"]) == 0
    lines = capsys.readouterr().out.splitlines()
    status = {line.split()[1]: line.split()[0] for line in lines}
    for group in GROUPS:
        assert status[group] == "pass", group
    assert status["fixture"] == "skip"


def test_bundled_kit_equals_the_spec_kit() -> None:
    assert bundled() == load_kit()


def test_a_tampered_kit_fails_the_right_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kit = load_kit()
    kit["chunkUid"][0]["expected"] = "f" * 32
    kit["quantization"][0]["int8"][2] = 63  # 0.5 must round half up to 64
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(kit), encoding="utf-8")
    assert main(["vectors", "--kit", str(path), "--json"]) == 1
    report = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert report["chunkUid"]["status"] == "FAIL"
    assert report["quantization"]["status"] == "FAIL"
    assert report["jcs"]["status"] == "pass"


def test_unreadable_kit_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vectors", "--kit", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gezel-knowledge: error: cannot read conformance vectors")
    assert "[unreadable]" in err
    assert len(err.strip().splitlines()) == 1


def test_running_one_command_imports_only_that_command() -> None:
    code = (
        "import sys; from gezel_knowledge.cli import main; main(['version']); "
        "print('gezel_knowledge.compiler' in sys.modules, 'gezel_knowledge.indexes' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False False"


def test_commands_that_do_not_embed_do_not_import_onnxruntime() -> None:
    # onnxruntime is imported when a model is loaded, not with the embedders package.
    commands = ("inspect", "validate", "topics", "list", "read", "search", "find", "build")
    code = (
        "import sys; from gezel_knowledge.cli import build_parser; "
        f"[build_parser(c) for c in {commands!r}]; print('onnxruntime' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False"


def test_reading_a_catalog_file_does_not_import_the_model_machinery() -> None:
    # The embedders package face is lazy: the reader needs only the Embedder protocol.
    code = (
        "import sys; from gezel_knowledge.cli import build_parser; "
        "[build_parser(c) for c in ('inspect', 'validate', 'topics')]; "
        "print(sorted(m for m in ('gezel_knowledge.embedders.shared', 'tokenizers') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"


def test_key_commands_do_not_import_the_build_pipeline() -> None:
    # The compiler's package face is lazy: keygen and sign need only its signing module.
    code = (
        "import sys; from gezel_knowledge.cli import build_parser; "
        "[build_parser(c) for c in ('keygen', 'sign')]; "
        "print('gezel_knowledge.compiler.build' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("build", "search", "install", "find", "index-search", "memory", "vectors"):
        assert command in out


def test_excerpts_drop_heading_marks_and_fold_whitespace() -> None:
    text = "## Second law\n\nForce   equals\n#hashtag stays\n   ### Deep"
    assert excerpt(text) == "Second law Force equals #hashtag stays Deep"
    assert excerpt("word " * 100, width=20) == "word word word word…"


@dataclass(frozen=True)
class _Doc:
    id: str
    meta: Any
    where: Path


def test_json_output_turns_read_only_mappings_into_objects(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Reader values carry metadata as read-only mapping views; they print as JSON objects.
    meta = MappingProxyType(
        {"team": "docs", "tags": ("a", "b"), "inner": MappingProxyType({"n": 3})}
    )
    print_json([_Doc("welcome", meta, Path("/tmp/x"))])
    assert json.loads(capsys.readouterr().out) == [
        {
            "id": "welcome",
            "meta": {"team": "docs", "tags": ["a", "b"], "inner": {"n": 3}},
            "where": "/tmp/x",
        }
    ]


@pytest.mark.parametrize("command", [["find"], ["search", "missing.gezk"]])
def test_a_search_without_words_or_near_is_refused(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, "  "]) == 1
    err = capsys.readouterr().err
    assert err == "gezel-knowledge: error: give a query, --near, or both [empty-query]\n"


@pytest.mark.parametrize(
    ("count", "expected"),
    [(0, "0 shards"), (1, "1 shard"), (2, "2 shards"), (1_024, "1,024 shards")],
)
def test_counts_agree_with_their_nouns(count: int, expected: str) -> None:
    # Issue 16 item 10: "1 shards", "INVALID (1 errors)".
    assert plural(count, "shard") == expected
    assert plural(count, "entry", "entries").endswith("entry" if count == 1 else "entries")


@pytest.mark.parametrize("command", ["search", "find", "index-search", "memory"])
def test_search_help_says_what_the_ranks_and_relevance_mean(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 16 item 5.
    argv = [command, "search", "--help"] if command == "memory" else [command, "--help"]
    with pytest.raises(SystemExit):
        main(argv)
    text = " ".join(capsys.readouterr().out.split())
    assert "relevance in --json, 11/(11+position)" in text
    assert "not the probability" in text
    assert "score is the cosine of its passage to the question" in text
    assert "cosine similarity" in text


def test_read_usage_shows_one_reference(capsys: pytest.CaptureFixture[str]) -> None:
    # read takes an optional catalog and one reference; its usage once suggested a list of them.
    with pytest.raises(SystemExit):
        main(["read", "--help"])
    usage = " ".join(capsys.readouterr().out.split("\n\n")[0].split())
    assert usage.endswith("[CATALOG] REFERENCE"), usage
    with pytest.raises(SystemExit) as caught:
        main(["read", "a.gezk", "first", "second"])
    assert caught.value.code == 2
    assert "unrecognized arguments: second" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["inspect", "validate", "topics", "list", "search", "read"])
def test_a_folder_that_is_no_catalog_is_one_error_for_every_command(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A folder without manifest.json is no catalog, whichever command is given it: one message
    # and one reason (the reading commands once said 'missing-manifest', an archive's finding).
    args = {"search": ["words"], "read": ["doc"]}.get(command, [])
    assert main([command, str(tmp_path), *args]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"gezel-knowledge: error: {tmp_path} is not an extracted catalog (no manifest.json) "
        "[catalog-not-found]\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "search", "q"],
        ["memory", "add", "note"],
        ["memory", "rebuild"],
        ["cache", "list"],
        ["cache", "prune"],
        ["index", "."],
    ],
)
def test_verbose_is_taken_after_a_subcommand_action_too(argv: list[str]) -> None:
    # Every command takes --verbose after its arguments; memory's and cache's actions once
    # refused it there ("unrecognized arguments").
    parser = build_parser(argv[0])
    assert parser.parse_args([*argv, "--verbose"]).verbose is True
    assert parser.parse_args([argv[0], "--verbose", *argv[1:]]).verbose is True
    assert parser.parse_args(argv).verbose is False


def test_read_without_a_catalog_names_every_kind_of_catalog(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A document id needs a catalog; the message names the installed ones as well as paths.
    assert main(["read", "welcome"]) == 1
    err = capsys.readouterr().err
    assert "or an installed catalog (publisher/catalog[@version] or a unique id)" in err
    assert err.rstrip().endswith("[catalog-required]")
