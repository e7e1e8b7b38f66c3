"""Run the commands of the user guide's pages and write their output under them.

A page's runnable example is a fenced block whose info string is ``console`` and
whose first line is ``$ dslc ...`` (optionally preceded by ``NAME=value``
settings, and ending with ``2>&1`` where standard error belongs to the output);
the rest of the block is what that command prints. Blocks fenced otherwise
(``sh``, ``text``) are shown, not run: commands that need a GPU or a running
cluster.

    python docs/guide/regen.py            # rewrite every page's outputs
    python docs/guide/regen.py search.md  # one page

tests/test_guide.py checks that every script a page names exists, and that the
blocks run on the interpreter (``--backend interp``) still print what the page
shows; when a change of dslc changes an output on purpose, run this script and
commit the pages it rewrote.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

GUIDE = Path(__file__).resolve().parent
ROOT = GUIDE.parents[1]
FENCE = re.compile(r"^```console\n\$ (?P<command>[^\n]*)\n(?P<output>.*?)^```$", re.M | re.S)
SETTING = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
# the ``dslc`` command of this interpreter (the console script's own entry point)
LAUNCH = "import sys; from dslc.cli import main; sys.exit(main(sys.argv[1:]))"


@dataclass(frozen=True)
class Block:
    """One runnable example: the command as the page shows it and its shown output."""

    command: str
    output: str
    start: int  # the span of the output inside the page's text
    end: int

    @property
    def on_interpreter(self) -> bool:
        """Run on the reference interpreter: cheap and stable, so the test runs it."""
        return "--backend interp" in self.command


def blocks(text: str) -> list[Block]:
    return [Block(m["command"], m["output"], m.start("output"), m.end("output"))
            for m in FENCE.finditer(text)]


def scripts(text: str) -> list[str]:
    """Every ``examples/NAME.bio`` the page names (in commands or prose)."""
    return sorted(set(re.findall(r"examples/[\w./-]+?\.bio\b", text)))


def normal(output: str) -> str:
    """Output as a page holds it: no trailing blanks on a line, no trailing blank lines
    (editors strip them, and they carry nothing)."""
    return "\n".join(line.rstrip() for line in output.splitlines()).strip("\n")


def run(command: str, cache: str, timeout: float = 600) -> str:
    """What ``command`` (``dslc ...``, as shown on a page) prints, run from the
    repository's root with this interpreter's dslc and the cache directory ``cache``."""
    words = shlex.split(command)
    env = dict(os.environ, DSLC_CACHE_DIR=cache)
    while words and SETTING.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    merged = words[-1:] == ["2>&1"]
    words = words[:-1] if merged else words
    if words[:1] != ["dslc"]:
        raise ValueError(f"not a dslc command: {command!r}")
    done = subprocess.run([sys.executable, "-c", LAUNCH, *words[1:]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode not in (0, 2):  # 2: a mistake the page shows on purpose
        raise RuntimeError(f"{command!r} failed ({done.returncode}):\n{done.stderr}")
    return normal(done.stdout + (done.stderr if merged else ""))


def regenerate(page: Path, cache: str) -> bool:
    """Rewrite ``page``'s outputs; True where something changed."""
    text = page.read_text()
    out, at = [], 0
    for b in blocks(text):
        out += [text[at:b.start], run(b.command, cache) + "\n"]
        at = b.end
        print(f"{page.name}: $ {b.command}", file=sys.stderr)
    new = "".join(out) + text[at:]
    if new != text:
        page.write_text(new)
    return new != text


def main(argv: list[str]) -> int:
    pages = [GUIDE / a for a in argv] or sorted(GUIDE.glob("*.md"))
    cache = os.environ.get("DSLC_CACHE_DIR") or tempfile.mkdtemp(prefix="dslc-guide-")
    changed = [p.name for p in pages if regenerate(p, cache)]
    print("rewritten: " + (", ".join(changed) or "nothing"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
