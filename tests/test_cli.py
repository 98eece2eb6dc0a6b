"""python -m xstride bench: runs the host benchmarks from a checkout, skips the GPU ones."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_bench_unknown_name_lists_known():
    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "nope"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    # a user error: one line on stderr, nothing on stdout (was printed on stdout)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("xstride bench: error: ")
    assert "unknown benchmark(s): nope" in lines[0] and "overhead" in lines[0]
    assert "run_all" not in lines[0]


def test_bench_unknown_names_that_are_no_identifier_are_shown_quoted(capsys):
    """``bench ""`` said "unknown benchmark(s): ; known: ...", and ``bench "sort "`` showed
    no trailing blank (a newline in a name broke the one line): such names are shown
    as their repr."""
    from xstride.__main__ import main

    assert main(["bench", "", "sort ", "a\nb", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xstride bench: error: unknown benchmark(s): '', 'a\\nb', nope, "
                          "'sort '; known: ") and err.count("\n") == 1


def test_every_gpu_only_benchmark_says_it_needs_a_device():
    """``python -m xstride bench`` ended with ``failed: short_rows`` without CuPy: its
    ``main`` imports CuPy but the script did not set ``NEEDS_DEVICE``. A script whose
    ``main`` imports CuPy or calls ``require_device`` in its own body (not only in a
    branch or helper for device rows) must set it, so that bench skips it in its one
    line without a device."""
    import ast

    from xstride._cli.bench import _DIR, known_names, needs_device

    gpu_only = []
    for name in known_names():
        tree = ast.parse((_DIR / f"{name}.py").read_text(encoding="utf-8"))
        main = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
        body = main[0].body if main else []
        for stmt in body:
            imports = isinstance(stmt, ast.Import) and any(a.name == "cupy" for a in stmt.names)
            requires = any(isinstance(n, ast.Call) and getattr(n.func, "id", None) ==
                           "require_device" or getattr(n.func, "attr", None) == "require_device"
                           for n in ast.walk(stmt) if isinstance(n, ast.Call))
            if imports or requires:
                gpu_only.append(name)
                break
    assert {"elementwise", "reductions", "short_rows", "sort"} <= set(gpu_only)
    assert [n for n in gpu_only if not needs_device(_DIR / f"{n}.py")] == []


def test_bench_help_lists_the_known_benchmark_names():
    from xstride._cli.bench import known_names

    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "--help"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())          # argparse wraps the help text
    names = known_names()
    assert "layers" in names and "overhead" in names and "run_all" not in names
    assert "known: " + ", ".join(names) in text


@pytest.mark.parametrize("command, words", [
    ("info", "the capability table"),
    ("demo", "the end-to-end particle pipeline"),
    ("bench", "run the benchmarks of benchmarks/"),
])
def test_each_subcommand_help_says_what_it_does_and_where_its_page_is(command, words):
    """A new-user probe: ``python -m xstride demo --help`` (and ``info``'s, ``bench``'s)
    was the usage and the options only, with nothing saying what the command does or
    which page tells more; the top-level ``--help`` had a line for each."""
    r = subprocess.run([sys.executable, "-m", "xstride", command, "--help"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    head = text[:text.index("options:")]
    assert words.lower() in head.lower()
    page = {"info": "docs/api.md", "demo": "docs/demo.md", "bench": "docs/performance.md"}
    assert page[command] in head


@pytest.mark.slow
def test_bench_overhead_runs_and_prints_table():
    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "overhead"],
                       capture_output=True, text=True, timeout=300,
                       env={**__import__("os").environ, "XSTRIDE_BENCH_QUICK": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| add " in r.stdout and "added (us)" in r.stdout


def test_bench_without_a_device_skips_the_gpu_benchmarks_in_one_line():
    # CUDA_VISIBLE_DEVICES="" hides any GPU, so this runs the same with or without CuPy
    env = {**__import__("os").environ, "CUDA_VISIBLE_DEVICES": ""}
    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "elementwise", "reductions"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    skipped = [line for line in r.stdout.splitlines() if "skipped" in line]
    assert len(skipped) == 1, r.stdout
    assert "elementwise, reductions" in skipped[0] and "backend 'cupy' is unavailable" in skipped[0]
    assert "Traceback" not in r.stderr and "failed" not in r.stdout
    assert "ModuleNotFoundError" not in r.stderr


@pytest.mark.parametrize("name", ["elementwise", "reductions", "fuse", "short_rows"])
def test_gpu_benchmark_run_directly_without_a_device_says_why(name):
    import os
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{name}: skipped: it needs CuPy and a GPU"), lines


def test_info_with_an_unavailable_backend_variable_prints_the_reason():
    """Issue 15 item 10: ``XSTRIDE_BACKEND=cupy python -m xstride info`` without CuPy
    crashed at import; info is the diagnostic tool: it prints the reason, exits 0."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XSTRIDE_BACKEND": "cupy", "CUDA_VISIBLE_DEVICES": ""}
    code = "import sys; sys.modules['cupy'] = None; from xstride.__main__ import main; " \
           "sys.exit(main(['info']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "active backend: none (environment variable XSTRIDE_BACKEND='cupy'" in proc.stdout
    assert "unavailable" in proc.stdout and proc.stderr == ""
    # --json: the backend null, the reason in a key of its own (a new-user probe: the
    # sentence stood where a backend name goes)
    code = code.replace("['info']", "['info', '--json']")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    import json

    got = json.loads(proc.stdout)
    assert got["backend"] is None
    assert got["backend_error"].startswith("environment variable XSTRIDE_BACKEND='cupy'")


@pytest.mark.parametrize("args", [["info", "--json"], ["info"], ["demo", "--n", "5"],
                                  ["demo", "--n", "5", "--json"]])
def test_a_closed_stdout_ends_the_command_quietly(args):
    """``python -m xstride info --json | head -1`` ended with a BrokenPipeError traceback.
    The reader here is gone before the first write (deterministic: no reader at all);
    the command stops as a Unix tool killed by SIGPIPE: status 141, nothing on stderr.
    The demo caught the error itself and exited 0, as if its output had been read."""
    import os

    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run([sys.executable, "-m", "xstride", *args], stdout=w,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(w)
    assert proc.returncode == 141, proc.stderr
    assert proc.stderr == ""


@pytest.mark.parametrize("value", ["abc", "0"])
def test_a_bad_environment_variable_is_one_line_not_a_traceback(monkeypatch, capsys, value):
    """A new-user probe: ``XSTRIDE_NUM_THREADS=abc python -m xstride demo`` ended with a
    traceback (the library's ValueError from the host Philox executor); the command now
    says it in one line and exits with status 2, as for a bad option."""
    from xstride.__main__ import entry_point

    monkeypatch.setenv("XSTRIDE_NUM_THREADS", value)
    assert entry_point(["demo", "--n", "10"]) == 2
    err = capsys.readouterr().err
    # named after the subcommand, as docs/demo.md says every demo error is (a later
    # probe: it began "xstride: error:")
    assert err == (f"xstride demo: error: environment variable XSTRIDE_NUM_THREADS="
                   f"{value!r}: expected a positive integer (threads of the host Philox "
                   "executor)\n"), err


@pytest.mark.parametrize("command", [["-m", "xstride", "info"], ["-m", "xstride", "demo"],
                                     ["-m", "xstride.__main__", "info", "--json"],
                                     ["-mxstride", "info"]])
@pytest.mark.parametrize("value", ["bogus", " numpy"])
def test_a_bad_backend_variable_is_one_line_not_a_traceback(command, value):
    """A new-user probe: ``XSTRIDE_BACKEND=bogus python -m xstride info`` (and ``demo``)
    printed the import's traceback: Python imports the package before the command runs.
    The command now names the variable, the value and the valid names in one line and
    exits with status 2; ``import xstride`` elsewhere still raises (test_backend.py)."""
    import os

    env = {**os.environ, "XSTRIDE_BACKEND": value}
    proc = subprocess.run([sys.executable, *command], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == (f"xstride: error: environment variable XSTRIDE_BACKEND={value!r}: "
                           "expected one of 'numpy', 'cupy', 'dask' (case-insensitive, no "
                           "surrounding blanks)\n"), proc.stderr


@pytest.mark.parametrize("argv, orig, starting", [
    (["/venv/bin/xstride", "info"], ["/venv/bin/python", "/venv/bin/xstride", "info"], True),
    (["-m", "info"], ["python", "-m", "xstride", "info"], True),
    (["-m", "info"], ["python", "-Im", "xstride", "info"], True),
    (["-m", "info"], ["python", "-m", "mytool", "info"], False),
    # the module joined to the flag (a new-user probe: a traceback, status 1)
    (["-m", "info"], ["python", "-mxstride", "info"], True),
    (["-m", "info"], ["python", "-Imxstride.__main__", "info"], True),
    (["-m", "info"], ["python", "-mmytool", "info"], False),
    (["-m", "info"], ["python", "-xmxstride", "info"], True),   # (a review: -x missed)
    (["-m", "info"], ["python", "-uEsmxstride", "info"], True),
    (["-c"], ["python", "-c", "import xstride"], False),
    (["script.py"], ["python", "script.py"], False),
])
def test_the_command_line_start_is_recognised(monkeypatch, argv, orig, starting):
    """Only the command line defers a bad ``XSTRIDE_BACKEND`` past the import (the
    ``xstride`` script of pyproject's [project.scripts] as well as ``-m``)."""
    from xstride._backends import select

    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(sys, "orig_argv", orig)
    assert select._cli_is_starting() is starting


def test_ctrl_c_is_one_line_and_status_130(monkeypatch, capsys):
    """A new-user probe: Ctrl-C during ``python -m xstride demo --n 60000000`` printed
    61 lines of traceback through the running stage; now one line, status 130."""
    import xstride.__main__ as cli

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "main", interrupted)
    assert cli.entry_point(["demo"]) == 130
    assert capsys.readouterr().err == "xstride: interrupted\n"


def test_ctrl_c_in_a_real_demo_process():
    """The same through the interpreter: SIGINT to a running demo."""
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "xstride", "demo", "--backend", "numpy",
                             "--n", "10000000"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.5)   # past the import (about 1 s), before the end (about 6 s)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "xstride: interrupted" and "Traceback" not in err


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"),
                    reason="no /dev/full on this system (a device whose writes always fail)")
@pytest.mark.parametrize("args", [["info"], ["info", "--json"], ["demo", "--n", "5"],
                                  ["demo", "--n", "5", "--json"]])
def test_output_that_cannot_be_written_is_one_line_and_status_74(args):
    """A new-user probe: ``python -m xstride info > /dev/full`` ended with an OSError
    traceback and status 1 (docs/demo.md: a failed check); now one line and status 74
    (EX_IOERR)."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "xstride", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr == "xstride: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("args", [["info"], ["info", "--json"], ["demo", "--n", "5"],
                                  ["--help"]])
def test_a_closed_stdout_is_one_line_and_status_74(args):
    """``python -m xstride info >&-`` (no stdout at all: Python's ``sys.stdout`` is None)
    ended with a traceback, "AttributeError: 'NoneType' object has no attribute
    'write'", and status 1; now one line and status 74, as output that cannot be
    written."""
    import os

    proc = subprocess.run([sys.executable, "-m", "xstride", *args], stdout=None,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr == "xstride: error: cannot write the output: stdout is closed\n"


@pytest.mark.parametrize("args, status", [
    (["demo", "--n", "0", "--json"], 2),           # an error line
    (["demo", "--n", "4000000", "--json"], 0),     # progress lines (a stage past 1 s)
    (["demo", "--n", "5", "--json"], 0),
])
def test_a_closed_stderr_leaves_stdout_to_the_output(args, status):
    """``python -m xstride demo --json 2>&-`` (Python's ``sys.stderr`` is None): the error
    line and the progress lines went to stdout (``print(file=None)``), into the JSON,
    and the progress line's flush of None ended the demo with status 1 and no JSON."""
    import json
    import os

    proc = subprocess.run([sys.executable, "-m", "xstride", *args], stdout=subprocess.PIPE,
                          stderr=None, text=True, timeout=300,
                          preexec_fn=lambda: os.close(2))
    assert proc.returncode == status, proc.stdout[-2000:]
    if status:
        assert proc.stdout == ""
    else:
        assert json.loads(proc.stdout)["points"] == int(args[2])


@pytest.mark.parametrize("encoding, shown", [("ascii", "caf\\xe9.csv"),
                                             ("latin-1", "caf\u00e9.csv")])
def test_a_file_name_stdout_cannot_encode_is_escaped_not_a_traceback(tmp_path, encoding,
                                                                    shown):
    """``PYTHONIOENCODING=ascii python -m xstride demo --points café.csv`` (or an ASCII
    or Latin-1 locale) ended with a UnicodeEncodeError traceback and status 1 when the
    table named the file; the name is written with the escapes of what the encoding
    lacks, as on stderr."""
    import os

    path = tmp_path / "caf\u00e9.csv"
    path.write_text("1,2,3\n4,5,6\n")
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--points", str(path)],
                          capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
    assert proc.stderr == b""
    first = proc.stdout.decode(encoding).splitlines()[0]
    assert first == f"xstride demo: {tmp_path / shown} on numpy"


def test_an_oserror_of_anything_but_stdout_is_not_called_an_output_error(monkeypatch):
    """Only a write to stdout is an output error: another ``OSError`` propagates as it
    did (and stdout is the real stream again afterwards)."""
    import xstride.__main__ as cli

    real = sys.stdout

    def fails(argv):
        assert isinstance(sys.stdout, cli._Stdout)
        raise OSError(5, "Input/output error", "points.ply")

    monkeypatch.setattr(cli, "main", fails)
    with pytest.raises(OSError, match="points.ply"):
        cli.entry_point(["demo"])
    assert sys.stdout is real


@pytest.mark.parametrize("command, option", [("info", "--kernels"), ("demo", "--points"),
                                             ("bench", "name")])
def test_an_unknown_option_shows_the_subcommands_usage(capsys, command, option):
    """``python -m xstride info --bogus`` printed the top-level usage (``python -m xstride
    [-h] {info,demo,bench} ...``), which does not show the options ``info`` takes."""
    from xstride.__main__ import main

    with pytest.raises(SystemExit) as info:
        main([command, "--bogus"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: python -m xstride {command} ") and option in err
    assert err.rstrip().endswith(f"\nxstride {command}: error: unrecognized "
                                 "arguments: --bogus")


@pytest.mark.parametrize("argv, line", [
    ([], "xstride: error: the following arguments are required: command"),
    (["bogus"], "xstride: error: argument command: invalid choice: 'bogus'"),
    (["demo", "--backend", "bogus"], "xstride demo: error: argument --backend: invalid choice"),
    (["demo", "--voxel", "abc"], "xstride demo: error: argument --voxel: invalid float value"),
    (["demo", "--chunks", "abc"], "xstride demo: error: argument --chunks: 'abc' is neither"),
    (["demo", "--bogus"], "xstride demo: error: unrecognized arguments: --bogus"),
    (["info", "--backend", "numpy"], "xstride info: error: --backend goes with --kernels"),
    (["bench", "--x"], "xstride bench: error: unrecognized arguments: --x"),
    # a new-user probe: a stray argument's newline split the line, its ESC reached the
    # terminal; escaped as every other error line escapes a value
    (["demo", "--n", "10", "my\ncloud.ply"],
     "xstride demo: error: unrecognized arguments: my\\ncloud.ply"),
    (["info", "a\x1b[2Jb"], "xstride info: error: unrecognized arguments: a\\x1b[2Jb"),
])
def test_parser_errors_begin_as_the_command_s_own(capsys, argv, line):
    """The parser's errors began ``python -m xstride demo: error:``, the subcommands'
    own ``xstride demo: error:``; both now begin ``xstride[ <subcommand>]: error:``
    (after the parser's usage line), with exit status 2."""
    from xstride.__main__ import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m xstride")
    assert err.rstrip("\n").splitlines()[-1].startswith(line), err


@pytest.mark.parametrize("argv, line", [
    (["demo", "--voxel", "-1"], "xstride demo: error: --voxel must be a positive"),
    (["demo", "--workers", "3"], "xstride demo: error: --workers applies only to --backend "
                                 "dask"),
    (["demo", "--points", "{missing}"], "xstride demo: error: {missing}: no such file"),
    (["bench", "nope"], "xstride bench: error: unknown benchmark(s): nope"),
])
def test_the_commands_own_errors_have_the_same_prefix(capsys, tmp_path, argv, line):
    """A value the parser takes but the command refuses: one line, the same prefix as
    the parser's errors, exit status 2."""
    from xstride.__main__ import main

    missing = tmp_path / "nope.xyz"
    argv = [a.format(missing=missing) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(line.format(missing=missing)), err


def test_version_prints_the_version_and_exits_0(capsys):
    import xstride
    from xstride.__main__ import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"xstride {xstride.__version__}\n"
