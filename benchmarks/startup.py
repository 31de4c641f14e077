"""Start-up of the command line (issue 13 goal 5), as ratios against bare imports.

Each command runs as a fresh process and is measured by the CPU time (user + system) that child
process used, read with ``os.wait4``; commands take turns run by run, so a change in the
machine's load touches every command alike. The table prints each command's median and its ratio
to the reference it is judged against:

- ``gezel-knowledge --help`` and ``gezel-knowledge version`` against ``python -c "import numpy"``
  (goal: at most 1.5x);
- ``gezel-knowledge search CATALOG QUERY`` on the example catalog, a fresh process that opens the
  ``.gezk`` (its verified extraction is cached), loads and verifies the query model and searches,
  against ``python -c "import numpy, onnxruntime"`` (goal: at most 3x).

The catalog is ``examples/handbook`` built with the default model into a temporary home (or
``--catalog``). The machine's load average is printed before and after.

Children run as an installed package runs: with bytecode caching on (``PYTHONDONTWRITEBYTECODE``
removed from their environment, caches under a private ``PYTHONPYCACHEPREFIX``), each command
run once to fill the caches before the rounds; pip compiles an installed wheel's modules when it
installs them, and numpy and onnxruntime, the references, are such wheels. One more row, without
a goal, is the search under the caller's own bytecode settings: where ``PYTHONDONTWRITEBYTECODE=1``
is set (as on the machines this project is developed on) and no cache sits beside the sources,
every run compiles the package's modules from source.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUERY = "how do I sign a catalog"


@dataclass(frozen=True)
class Row:
    """One measured command: its median CPU seconds, ratio to its reference, and goal."""

    name: str
    cpu_s: float
    reference: str | None = None
    ratio: float | None = None
    goal: float | None = None

    @property
    def met(self) -> bool | None:
        """Whether the ratio is within the goal (``None`` for a reference row)."""
        return None if self.goal is None or self.ratio is None else self.ratio <= self.goal


@dataclass(frozen=True)
class Command:
    """One measured command line and what its environment adds to the benchmark's."""

    argv: list[str]
    env: dict[str, str | None] = field(default_factory=dict)
    """Variables to set, or with ``None`` to remove."""


def child_cpu(argv: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run of ``argv`` as a child process."""
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def build_catalog(work: Path, env: dict[str, str]) -> Path:
    """``examples/handbook`` built with the default model (the README's first command)."""
    out = work / "handbook.gezk"
    subprocess.run(
        [sys.executable, "-m", "gezel_knowledge", "build", "examples/handbook", "-o", str(out)],
        env=env,
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


SEARCH_UNCACHED = "search, caller's bytecode settings"
_BYTECODE_SETTINGS = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


def _callers_bytecode_settings() -> dict[str, str | None]:
    return {name: os.environ.get(name) for name in _BYTECODE_SETTINGS}


def _environment(base: dict[str, str], changes: dict[str, str | None]) -> dict[str, str]:
    env = {**base, **{k: v for k, v in changes.items() if v is not None}}
    for name in [k for k, v in changes.items() if v is None]:
        env.pop(name, None)
    return env


def commands(catalog: Path) -> dict[str, Command]:
    """The measured commands and references, by name."""
    cli = [sys.executable, "-m", "gezel_knowledge"]
    search = [*cli, "search", str(catalog), QUERY]
    return {
        "python -c 'import numpy'": Command([sys.executable, "-c", "import numpy"]),
        "python -c 'import numpy, onnxruntime'": Command(
            [sys.executable, "-c", "import numpy, onnxruntime"]
        ),
        "gezel-knowledge --help": Command([*cli, "--help"]),
        "gezel-knowledge version": Command([*cli, "version"]),
        "gezel-knowledge search": Command(search),
        # The caller's own bytecode settings: with PYTHONDONTWRITEBYTECODE=1 and no cache
        # beside the sources, the package compiles from source while the standard library,
        # numpy and onnxruntime still load their compiled bytecode.
        SEARCH_UNCACHED: Command(search, _callers_bytecode_settings()),
    }


GOALS: dict[str, tuple[str, float | None]] = {
    "gezel-knowledge --help": ("python -c 'import numpy'", 1.5),
    "gezel-knowledge version": ("python -c 'import numpy'", 1.5),
    "gezel-knowledge search": ("python -c 'import numpy, onnxruntime'", 3.0),
    SEARCH_UNCACHED: ("python -c 'import numpy, onnxruntime'", None),
}


def measure(catalog: Path, runs: int, env: dict[str, str]) -> list[Row]:
    """Median child CPU of every command over ``runs`` interleaved rounds."""
    argvs = commands(catalog)
    for command in argvs.values():  # warm: the verified extraction and the bytecode are cached
        child_cpu(command.argv, _environment(env, command.env))
    samples: dict[str, list[float]] = {name: [] for name in argvs}
    names = list(argvs)
    for run in range(runs):
        # Rotate the order each round so no command always follows the same one.
        for name in names[run % len(names) :] + names[: run % len(names)]:
            command = argvs[name]
            samples[name].append(child_cpu(command.argv, _environment(env, command.env)))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    rows: list[Row] = []
    for name, value in medians.items():
        goal = GOALS.get(name)
        if goal is None:
            rows.append(Row(name, value))
        else:
            reference, limit = goal
            rows.append(Row(name, value, reference, value / medians[reference], limit))
    return rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure and return the figures (``rows``, load averages, catalog)."""
    work = Path(tempfile.mkdtemp(prefix="gezel-startup-"))
    env = dict(os.environ, GEZEL_HOME=str(work / "home"), GEZEL_HANDBOOK="off")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    try:
        catalog = Path(args.catalog) if args.catalog else build_catalog(work, env)
        before = os.getloadavg()
        rows = measure(catalog, args.runs, env)
        after = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "runs": args.runs,
        "catalog": str(catalog) if args.catalog else "examples/handbook (built)",
        "loadBefore": [round(x, 2) for x in before],
        "loadAfter": [round(x, 2) for x in after],
        "cpuCount": os.cpu_count(),
        "rows": [{**asdict(r), "met": r.met} for r in rows],
    }


def print_table(result: dict[str, Any]) -> None:
    """The figures as a small table, each ratio next to its goal."""
    print(f"start-up, median child CPU over {result['runs']} interleaved runs")
    print(f"load average before {result['loadBefore']}, after {result['loadAfter']}")
    print(f"{'command':40} {'CPU s':>7} {'ratio':>6} {'goal':>6}  against")
    for row in result["rows"]:
        if row["ratio"] is None:
            print(f"{row['name']:40} {row['cpu_s']:7.3f}")
            continue
        if row["goal"] is None:
            print(
                f"{row['name']:40} {row['cpu_s']:7.3f} {row['ratio']:5.2f}x {'-':>6}  "
                f"{row['reference']} (no goal)"
            )
            continue
        verdict = "met" if row["met"] else "NOT met"
        print(
            f"{row['name']:40} {row['cpu_s']:7.3f} {row['ratio']:5.2f}x {row['goal']:5.1f}x  "
            f"{row['reference']} ({verdict})"
        )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="interleaved rounds (9)")
    parser.add_argument("--catalog", help="the .gezk to search (default: build examples/handbook)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
