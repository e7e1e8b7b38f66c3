"""Hostile places to read from: a gzipped script that inflates to far more than a
script holds, special files given to ``load`` (a directory, a file whose read fails
with EIO, a FIFO nobody writes to) and ``--cluster`` addresses that are no Dask
scheduler. Each is one message naming what was wrong, exit status 2, no traceback,
and within its stated bound (docs/robustness.md, "Limits"); a FIFO that has a
writer still reads."""

from __future__ import annotations

import gzip
import os
import socket
import threading
import time

import pytest

from dslc.cli import main
from dslc.lang import limits

# in-process runs here give --setting, which holds for the rest of the process
pytestmark = pytest.mark.usefixtures("settings_restored")


MAP_SCRIPT = """\
define alphabet dna "ACGT"
int f(seq[dna] s) = len(s)
xs = load(seq[dna], "s.fasta")
print map(f, xs)
"""


def run_cli(capsys, *args, within: float = 60):
    """One in-process ``dslc`` command, on a thread given ``within`` seconds: a hang
    (the very thing some of these tests look for) fails the test instead of the suite.
    The bounds are generous: the stated limits are seconds, a loaded machine is slow."""
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(code=main(list(args))), daemon=True)
    thread.start()
    thread.join(within)
    assert not thread.is_alive(), f"dslc {' '.join(args)} still runs after {within} s"
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "code" in box, out.err
    return box["code"], out.out, out.err


def test_a_gzipped_script_inflating_past_the_script_limit_stops_early(tmp_path, capsys):
    path = tmp_path / "bomb.bio"
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b"print 1\n")
        line = b"//" + b" " * (1 << 20) + b"\n"
        for _ in range(64):  # 64 MiB inflated, 64 KiB on disk
            fh.write(line)
    code, _, err = run_cli(capsys, "run", str(path), "--backend", "interp", within=30)
    assert code == 2
    assert err.startswith(f"error: script '{path}' holds more than DSLC_MAX_SCRIPT_BYTES = "
                          f"{limits.DEFAULT_SCRIPT_BYTES:,} bytes"), err
    # the limit is a setting: a script under it reads as before
    code, out, err = run_cli(capsys, "run", str(path), "--backend", "interp", "--setting",
                             f"DSLC_MAX_SCRIPT_BYTES={80 << 20}")
    assert code == 0 and out.strip() == "1 = 1", err


def _load_script(tmp_path, target: str) -> str:
    p = tmp_path / "l.bio"
    p.write_text(f'const w = load(ints, "{target}")\nint f(int i) = w[i]\nprint f(0)\n')
    return str(p)


@pytest.mark.parametrize("target, says", [
    ("/proc/self/mem", "Input/output error"),
    ("{tmp}", "it is a directory"),
])
def test_a_special_file_that_cannot_be_read_is_one_error_naming_it(tmp_path, capsys,
                                                                   target, says):
    target = target.format(tmp=tmp_path)
    if not os.path.exists(target):
        pytest.skip(f"no {target} here")
    code, _, err = run_cli(capsys, "run", _load_script(tmp_path, target), "--backend", "interp")
    assert code == 2
    assert f"l.bio:1:11: error: cannot read ints file '{target}': {says}" in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_nobody_writes_to_is_an_error_after_the_wait(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run_cli(capsys, "run", _load_script(tmp_path, str(fifo)), "--backend",
                           "interp", "--setting", "DSLC_FIFO_WAIT_SECONDS=1", within=30)
    assert code == 2
    assert f"cannot read ints file '{fifo}': it is a FIFO (a named pipe) and no program " \
           "opened it for writing within 1 s (DSLC_FIFO_WAIT_SECONDS)" in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_with_a_writer_reads_even_when_it_writes_late(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as fh:  # opens as soon as dslc does
            time.sleep(1.5)  # longer than the wait for a writer: that one has come
            fh.write("41 2 3\n")

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    code, out, err = run_cli(capsys, "run", _load_script(tmp_path, str(fifo)), "--backend",
                             "interp", "--setting", "DSLC_FIFO_WAIT_SECONDS=1")
    thread.join(10)
    assert code == 0 and out.strip() == "f(0) = 41", err


# ------------------------------------------------------------------ --cluster


def _server(reply: bytes | None):
    """A TCP server on 127.0.0.1 that accepts and sends ``reply`` (None: nothing,
    ever), each connection held open; returns (address, stop)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    held, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if reply is not None:
                conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join(5)
        for c in held:
            c.close()
        sock.close()

    return f"tcp://127.0.0.1:{sock.getsockname()[1]}", close


@pytest.mark.parametrize("address, says", [
    ("not an address", "not a scheduler address"),
    ("http://127.0.0.1:8786", "unknown address scheme 'http'"),
    ("tcp://127.0.0.1:99999", "port 99999 is outside 1 .. 65535"),
])
def test_a_cluster_address_that_is_none_is_one_error_at_once(tmp_path, capsys, address, says):
    pytest.importorskip("distributed")
    script = tmp_path / "m.bio"
    script.write_text(MAP_SCRIPT)
    (tmp_path / "s.fasta").write_text(">a\nACGT\n")
    code, _, err = run_cli(capsys, "run", str(script), "--backend", "interp",
                           "--cluster", address, within=30)
    assert code == 2 and err.startswith(f"error: --cluster {address}: ") and says in err, err


@pytest.mark.parametrize("reply, says", [
    (None, "no Dask scheduler answered within 1 s"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", ""),
    (b"\xff" * 64, ""),
])
def test_a_server_that_is_no_scheduler_is_one_error_in_bounded_time(tmp_path, capsys,
                                                                    monkeypatch, reply, says):
    pytest.importorskip("distributed")
    from dslc.cluster import pool

    monkeypatch.setattr(pool, "CONNECT_SECONDS", 1)  # the bound, shortened for the test
    script = tmp_path / "m.bio"
    script.write_text(MAP_SCRIPT)
    (tmp_path / "s.fasta").write_text(">a\nACGT\n")
    address, close = _server(reply)
    try:
        code, _, err = run_cli(capsys, "run", str(script), "--backend", "interp",
                               "--cluster", address, within=30)
    finally:
        close()
    assert code == 2 and err.startswith(f"error: --cluster {address}: "), err
    assert says in err and len(err.splitlines()) == 2, err


COUNT_SCRIPT = """\
define alphabet dna "ACGT"
param q = "x"
xs = load(seq[dna], q)
int f(seq[dna] s) = len(s)
print map(f, xs)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("text", [
    ">a\nACGT\n>b\r\nAC\rGT\n>c\nGG\n",  # a lone carriage return: the byte reader declines it
    ">a\nACGT\n>b\nACGT\n" * 3,
])
def test_fasta_through_a_fifo_reads_as_the_file_does(tmp_path, capsys, text):
    """A FIFO is read once: the records are the file's, never the rest of a stream another
    reader began (the byte reader, which may leave a file to the line reader, skips it)."""
    (tmp_path / "c.bio").write_text(COUNT_SCRIPT)
    (tmp_path / "plain.fasta").write_text(text, newline="")
    fifo = tmp_path / "pipe.fasta"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w", newline="") as fh:
            fh.write(text)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    code, via_fifo, err = run_cli(capsys, "run", str(tmp_path / "c.bio"), "--backend",
                                  "interp", "--set", f"q={fifo}")
    thread.join(10)
    assert code == 0, err
    code, via_file, err = run_cli(capsys, "run", str(tmp_path / "c.bio"), "--backend",
                                  "interp", "--set", f"q={tmp_path / 'plain.fasta'}")
    assert code == 0 and via_fifo == via_file, err
