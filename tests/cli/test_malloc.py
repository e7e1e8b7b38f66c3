"""glibc's malloc options dslc sets (dslc.malloc): a ``dslc`` command's process uses
one arena, and nothing is set where the user tuned malloc through its environment."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
ASK = "from dslc.malloc import one_arena; print(one_arena())"


def _asked(**env) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")
            and k != "GLIBC_TUNABLES"}
    full.update(env)
    return subprocess.run([sys.executable, "-c", ASK], env=full, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc only")
def test_one_arena_is_set_on_glibc():
    assert _asked() == "True"


@pytest.mark.parametrize("name", ["MALLOC_ARENA_MAX", "GLIBC_TUNABLES"])
def test_a_user_s_own_malloc_tuning_is_left_alone(name):
    assert _asked(**{name: "4" if name == "MALLOC_ARENA_MAX" else "glibc.malloc.arena_max=4"}) \
        == "False"


def test_the_command_sets_it_before_anything_runs(monkeypatch):
    import dslc.cli
    import dslc.malloc

    calls = []
    monkeypatch.setattr(dslc.malloc, "one_arena", lambda: calls.append("arena") or True)
    monkeypatch.setattr(dslc.cli, "build_parser", lambda: calls.append("parse") or _Stop())
    with pytest.raises(SystemExit):
        dslc.cli.main(["run", "-c", "print 1"])
    assert calls == ["arena", "parse"]


class _Stop:
    def parse_args(self, argv):
        raise SystemExit(0)
