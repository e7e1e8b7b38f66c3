"""Options are taken only as written in full: ``dslc check --set`` is no
``--setting`` (argparse's abbreviations are off in every parser)."""

from __future__ import annotations

import pytest

from dslc.cli import main


def test_set_is_not_taken_for_setting(capsys, write_bio):
    p = write_bio("param k = 3\nprint k\n")
    with pytest.raises(SystemExit) as e:
        main(["check", str(p), "--set", "k=4"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --set k=4" in err
    assert "--setting" not in err


@pytest.mark.parametrize("args", [["run", "--form", "json"], ["run", "--qui"],
                                  ["compile", "--out", "x.py"], ["--verb", "check"]])
def test_an_abbreviated_option_is_refused(capsys, write_bio, args):
    p = write_bio("print 1\n")
    with pytest.raises(SystemExit) as e:
        main([*args, str(p)])
    assert e.value.code == 2
    assert "error: unrecognized arguments" in capsys.readouterr().err


def test_options_in_full_still_work(capsys, write_bio):
    p = write_bio("param k = 3\nprint k\n")
    assert main(["run", "--quiet", "--format", "json", str(p), "--set", "k=4"]) == 0
    assert capsys.readouterr().out == '{"k": 4}\n'
