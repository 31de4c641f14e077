"""Embedder threads: the affinity mask, cgroup CPU quotas (v1 and v2), GEZEL_KNOWLEDGE_THREADS."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gezel_knowledge.embedders import cores
from gezel_knowledge.errors import InvalidInput


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake /sys/fs/cgroup at ``host/cgroup`` and /proc/self/cgroup at ``host/membership``,
    on eight cores."""
    (tmp_path / "cgroup").mkdir()
    monkeypatch.setattr(cores, "_CGROUP_ROOT", tmp_path / "cgroup")
    monkeypatch.setattr(cores, "_MEMBERSHIP", tmp_path / "membership")
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(8)), raising=False)
    monkeypatch.setattr(os, "process_cpu_count", lambda: 8, raising=False)
    monkeypatch.delenv(cores.THREADS_ENV, raising=False)
    return tmp_path


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="ascii")


def test_a_cgroup_v2_quota_caps_the_cores_like_docker_cpus(host: Path) -> None:
    # docker --cpus=2 with a private cgroup namespace: the container's own cgroup is the root.
    _write(host / "membership", "0::/\n")
    _write(host / "cgroup" / "cpu.max", "200000 100000\n")
    assert cores.cgroup_cpu_limit() == 2.0
    assert cores.usable_cores() == 2


def test_the_tightest_quota_of_the_cgroup_and_its_ancestors_applies(host: Path) -> None:
    _write(host / "membership", "0::/user.slice/app.scope\n")
    _write(host / "cgroup" / "user.slice" / "cpu.max", "150000 100000\n")
    _write(host / "cgroup" / "user.slice" / "app.scope" / "cpu.max", "max 100000\n")
    assert cores.cgroup_cpu_limit() == 1.5
    assert cores.usable_cores() == 1  # a fractional quota rounds down


def test_a_quota_above_the_affinity_mask_changes_nothing(host: Path) -> None:
    _write(host / "membership", "0::/\n")
    _write(host / "cgroup" / "cpu.max", "3200000 100000\n")
    assert cores.usable_cores() == 8


def test_cgroup_v1_cfs_quota_is_read_from_the_cpu_hierarchy(host: Path) -> None:
    _write(host / "membership", "5:memory:/x\n3:cpu,cpuacct:/docker/abc\n")
    group = host / "cgroup" / "cpu,cpuacct" / "docker" / "abc"
    _write(group / "cpu.cfs_quota_us", "300000\n")
    _write(group / "cpu.cfs_period_us", "100000\n")
    assert cores.usable_cores() == 3
    _write(group / "cpu.cfs_quota_us", "-1\n")
    assert cores.cgroup_cpu_limit() is None
    assert cores.usable_cores() == 8


@pytest.mark.parametrize(
    ("membership", "cpu_max"),
    [
        ("0::/\n", "max 100000\n"),  # no quota
        ("0::/\n", "garbage\n"),
        ("0::/\n", None),  # no cpu controller file
        (None, "100000 100000\n"),  # no /proc/self/cgroup (macOS, Windows)
    ],
)
def test_without_a_readable_quota_every_core_is_used(
    host: Path, membership: str | None, cpu_max: str | None
) -> None:
    if membership is not None:
        _write(host / "membership", membership)
    if cpu_max is not None:
        _write(host / "cgroup" / "cpu.max", cpu_max)
    assert cores.cgroup_cpu_limit() is None
    assert cores.usable_cores() == 8


def test_the_environment_caps_the_default_thread_count(
    host: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cores.default_threads() == 8
    monkeypatch.setenv(cores.THREADS_ENV, "3")
    assert cores.default_threads() == 3
    monkeypatch.setenv(cores.THREADS_ENV, "64")  # a cap, never more than the usable cores
    assert cores.default_threads() == 8


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_a_thread_cap_that_is_not_a_positive_integer_is_refused(
    host: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(cores.THREADS_ENV, value)
    with pytest.raises(InvalidInput) as info:
        cores.default_threads()
    assert (info.value.reason, info.value.subject) == ("invalid-threads", cores.THREADS_ENV)
