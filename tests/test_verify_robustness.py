"""The runner under hostile plugins and bad settings (issue 18): one bad claim never stops the run.

Bad outcomes become that claim's ``error``; plugin text is never console markup; ``--timeout`` kills a
stuck claim and the run goes on; ``--workers`` is capped; an unreachable Ray cluster and an unwritable
report path exit 2 with one line before any claim runs.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from verify import runner
from verify.claims import load_all
from verify.core import REGISTRY, Context, Outcome, claim, run_claim
from verify.parallel import ConnectError, _init_with_timeout, available_cores, probe_ray_address

REPO = Path(__file__).resolve().parents[1]
PREFIX = "test.robust."


@pytest.fixture
def register():
    """Register temporary claims ``test.robust.<name>`` returning a given value (or running a function)."""
    load_all()
    made: list[str] = []

    def add(name: str, value: Any = None, fn: Any = None, citation: str = "test", chunked: bool = False) -> str:
        cid = PREFIX + name
        REGISTRY.pop(cid, None)

        def check(ctx: Context) -> Any:
            return fn(ctx) if fn is not None else value

        check.__qualname__ = f"check_{name}"
        claim(cid, citation=citation, statement="robustness test", chunked=chunked)(check)
        made.append(cid)
        return cid

    yield add
    for cid in made:
        REGISTRY.pop(cid, None)


def _cyclic() -> dict[str, Any]:
    d: dict[str, Any] = {}
    d["self"] = d
    return d


BAD_OUTCOMES = [
    ("unknown_status", Outcome("great"), "Outcome.status must be one of"),  # type: ignore[arg-type]
    ("markup_status", Outcome("[bold]x"), "Outcome.status must be one of"),  # type: ignore[arg-type]
    ("not_an_outcome", {"status": "verified"}, "not a verify.Outcome"),
    ("none", None, "not a verify.Outcome"),
    ("object_in_details", Outcome("verified", details={"solver": object()}), "has no JSON form"),
    ("complex_in_cx", Outcome("refuted", counterexample={"z": 1 + 2j}), "complex number"),
    ("cycle", Outcome("verified", details=_cyclic()), "nested deeper"),
    ("mixed_set", Outcome("verified", details={"s": {1, "a"}}), "set of mixed types"),
    ("verified_inf", Outcome("verified", measured=float("inf"), bound=float("inf")), "non-finite"),
    ("verified_nan_tightness", Outcome("verified", tightness=float("nan")), "non-finite"),
    ("string_measured", Outcome("verified", measured="1.0"), "Outcome.measured must be a real number"),  # type: ignore[arg-type]
    ("bool_bound", Outcome("verified", bound=True), "bool"),  # type: ignore[arg-type]
    ("negative_instances", Outcome("verified", instances=-1), "instances must be an integer"),
    ("details_list", Outcome("verified", details=[1, 2]), "details must be a dict"),  # type: ignore[arg-type]
    ("note_bytes", Outcome("verified", note=b"x"), "note must be a string"),  # type: ignore[arg-type]
    ("bad_key", Outcome("verified", details={(1, object()): 1}), "dict key"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD_OUTCOMES, ids=[b[0] for b in BAD_OUTCOMES])
def test_bad_outcome_is_that_claims_error(register, name: str, value: Any, message: str) -> None:
    r = run_claim(register(name, value), Context())
    assert r.status == "error" and message in r.note, r.note
    json.dumps(r.to_json())  # the row is still reportable


GOOD_CONVERSIONS = [
    (Fraction(1, 3), "1/3"),
    (Fraction(4, 2), "2"),
    ({3, 1, 2}, [1, 2, 3]),
    (np.float32(1.5), 1.5),
    (np.int64(7), 7),
    (np.arange(3), [0, 1, 2]),
    (np.array([[True, False]]), [[True, False]]),
    (float("nan"), "nan"),
    (float("-inf"), "-inf"),
    ((1, (2.5, None)), [1, [2.5, None]]),
    ({1: "a", 2.5: "b", None: "c"}, {"1": "a", "2.5": "b", "None": "c"}),
    (10**40, 10**40),
]


@pytest.mark.parametrize(("value", "expected"), GOOD_CONVERSIONS, ids=[repr(g[0])[:30] for g in GOOD_CONVERSIONS])
def test_values_with_an_obvious_json_form_are_converted(register, value: Any, expected: Any) -> None:
    r = run_claim(register("conv", Outcome("verified", measured=np.float64(1.0), details={"v": value})), Context())
    assert r.status == "verified", r.note
    assert r.details["v"] == expected and json.loads(json.dumps(r.to_json()))["details"]["v"] == expected


def test_torch_tensor_in_details_is_converted(register) -> None:
    torch = pytest.importorskip("torch")
    out = Outcome("verified", measured=torch.tensor(0.5, dtype=torch.float64).item(),
                  details={"t": torch.tensor([1.0, 2.0], dtype=torch.float64)}, counterexample={"x": torch.tensor(3)})
    r = run_claim(register("tensor", out), Context())
    assert r.status == "verified" and r.details["t"] == [1.0, 2.0] and r.counterexample == {"x": 3}


def test_one_bad_outcome_does_not_stop_the_run(register, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Unknown status, a set, a Fraction, an object: the run goes on and the report keeps every claim."""
    ids = [register("a_status", Outcome("splendid")),  # type: ignore[arg-type]
           register("b_object", Outcome("verified", details={"x": object()})),
           register("c_fraction", Outcome("verified", measured=0.5, bound=1, details={"q": Fraction(1, 2)})),
           register("d_good", Outcome("verified", measured=1.0, bound=2.0), citation="Smith [Thm. 2]")]
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    assert runner.main(["--only", PREFIX + "*", "--json", str(js), "--markdown", str(md)]) == 1
    rows = {r["id"]: r for r in json.loads(js.read_text())["claims"]}
    assert list(rows) == ids
    assert [rows[i]["status"] for i in ids] == ["error", "error", "verified", "verified"]
    assert rows[ids[2]]["details"]["q"] == "1/2"
    out = capsys.readouterr().out
    assert "Smith [Thm. 2]" in out  # plugin text is printed, not parsed as markup
    assert "| Smith [Thm. 2] |" in md.read_text()


def test_plugin_text_is_never_console_markup(register, capsys: pytest.CaptureFixture[str]) -> None:
    register("markup", Outcome("verified", measured=1.0, bound=2.0, relation="[/]<=[bold]"),
             citation="[red]Jones[/red] [Lemma 1]")
    assert runner.main(["--only", PREFIX + "*", "--no-json", "--no-markdown"]) == 0
    out = capsys.readouterr().out
    assert "[red]Jones[/red] [Lemma 1]" in out and "[/]<=[bold]" in out


def _sleep_forever(ctx: Context) -> Outcome:
    time.sleep(600)
    return Outcome("verified")


def _die(ctx: Context) -> Outcome:
    os._exit(3)


def test_timeout_kills_a_stuck_claim_and_the_run_goes_on(register, tmp_path: Path) -> None:
    stuck = register("a_stuck", fn=_sleep_forever)
    dies = register("b_dies", fn=_die)
    good = register("c_good", Outcome("verified", measured=1.0, bound=2.0))
    js = tmp_path / "r.json"
    assert runner.main(["--only", PREFIX + "*", "--timeout", "1", "--json", str(js), "--no-markdown"]) == 1
    doc = json.loads(js.read_text())
    rows = {r["id"]: r for r in doc["claims"]}
    assert rows[stuck]["status"] == "error" and "timed out after 1 s" in rows[stuck]["note"]
    assert rows[dies]["status"] == "error" and "died without a result (exit code 3" in rows[dies]["note"]
    assert rows[good]["status"] == "verified"
    assert doc["meta"]["timeout_s"] == 1.0 and doc["meta"]["complete"]


def test_default_timeout_and_no_limit(register, tmp_path: Path) -> None:
    register("fast", Outcome("verified", measured=1.0, bound=2.0))
    js = tmp_path / "r.json"
    assert runner.main(["--only", PREFIX + "*", "--json", str(js), "--no-markdown"]) == 0
    assert json.loads(js.read_text())["meta"]["timeout_s"] == runner.DEFAULT_TIMEOUT[0] == 600
    assert runner.main(["--only", PREFIX + "*", "--json", str(js), "--no-markdown", "--timeout", "0"]) == 0
    assert json.loads(js.read_text())["meta"]["timeout_s"] is None


SLEEPY = textwrap.dedent('''
    import time

    from verify import Context, Outcome, claim


    def nap(x):
        time.sleep(x)
        return x


    @claim("sleepy.stuck", citation="test", statement="sleeps")
    def stuck(ctx: Context) -> Outcome:
        time.sleep(600)
        return Outcome("verified")


    @claim("sleepy.chunked", citation="test", statement="chunked sleeps", chunked=True)
    def chunked(ctx: Context) -> Outcome:
        for _ in range(1000):
            ctx.map(nap, [0.2, 0.2])
        return Outcome("verified")


    @claim("sleepy.fine", citation="test", statement="fast")
    def fine(ctx: Context) -> Outcome:
        return Outcome("verified", measured=1.0, bound=2.0)
''')


@pytest.mark.parametrize("executor", [pytest.param("process", marks=pytest.mark.slow),
                                      pytest.param("ray", marks=pytest.mark.slow)])
def test_timeout_with_workers(tmp_path: Path, executor: str) -> None:
    if executor == "ray":
        pytest.importorskip("ray")
    plugin = tmp_path / "sleepy.py"
    plugin.write_text(SLEEPY)
    js = tmp_path / "r.json"
    res = subprocess.run([sys.executable, "-m", "verify", "--plugin", str(plugin), "--only", "sleepy.*", "--workers", "2",
                          "--executor", executor, "--timeout", "3", "--json", str(js), "--no-markdown"],
                         cwd=REPO, capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert res.returncode == 1, res.stdout[-2000:] + res.stderr[-2000:]
    rows = {r["id"]: r for r in json.loads(js.read_text())["claims"]}
    assert rows["sleepy.stuck"]["status"] == "error" and "timed out after 3 s" in rows["sleepy.stuck"]["note"]
    assert rows["sleepy.chunked"]["status"] == "error" and "timed out after 3 s" in rows["sleepy.chunked"]["note"]
    assert rows["sleepy.fine"]["status"] == "verified"


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = runner.main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_workers_are_capped_or_refused(capsys: pytest.CaptureFixture[str]) -> None:
    load_all()
    code, out, err = _cli(["--workers", "10000", "--only", "rcfl.lemma2.gap", "--list"], capsys)
    assert code == 2 and err.count("\n") == 1 and "at most 1024" in err and not out
    if available_cores() < 1024:
        code, out, err = _cli(["--workers", "1024", "--only", "rcfl.lemma2.gap", "--list"], capsys)
        assert code == 0 and err == f"verify: --workers 1024 capped at {available_cores()} (the CPU cores available)\n"
    for bad in ("0", "-3", "x", "1.5"):
        code, _, err = _cli(["--workers", bad, "--list"], capsys)
        assert code == 2 and err.count("\n") == 1 and "--workers" in err


def test_unwritable_report_path_exits_2_before_any_claim(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    load_all()
    afile = tmp_path / "plain"
    afile.write_text("x")
    bad = [("--json", str(afile / "r.json"))]
    if Path("/proc/self").is_dir():
        bad += [("--json", "/proc/x.json"), ("--markdown", "/proc/sub/x.md")]
    for option, path in bad:
        other = "--no-markdown" if option == "--json" else "--no-json"
        code, out, err = _cli([option, path, other, "--only", "rcfl.lemma2.gap"], capsys)
        assert code == 2 and err.count("\n") == 1 and "not writable" in err, err
        assert "[1/" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"]  # no probe file left


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ray_address_probe() -> None:
    port = _closed_port()
    for address, message in ((f"127.0.0.1:{port}", "cannot reach"), ("ray://nohost.invalid:10001", "cannot reach"),
                             ("nonsense", "not host:port"), ("host:99999", "not host:port"), ("ray://:1", "not host:port")):
        with pytest.raises(ConnectError, match=message):
            probe_ray_address(address, timeout=2.0)
    with socket.socket() as srv:  # a listening port passes the probe
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        probe_ray_address(f"127.0.0.1:{srv.getsockname()[1]}")
        probe_ray_address("auto")


def test_ray_init_time_limit_and_failure() -> None:
    class Hangs:
        def init(self, **kw: Any) -> None:
            time.sleep(30)

    class Fails:
        def init(self, **kw: Any) -> None:
            raise ValueError("bad\naddress")

    with pytest.raises(ConnectError, match="within 0.5 s"):
        _init_with_timeout(Hangs(), {}, "1.2.3.4:5", timeout=0.5)
    with pytest.raises(ConnectError, match="ValueError: bad address"):
        _init_with_timeout(Fails(), {}, "1.2.3.4:5", timeout=5)


@pytest.mark.parametrize("address", [pytest.param("127.0.0.1:{port}", marks=pytest.mark.slow),
                                     pytest.param("ray://nohost.invalid:10001", marks=pytest.mark.slow)])
def test_unreachable_ray_cluster_exits_2_with_one_line(address: str) -> None:
    pytest.importorskip("ray")
    address = address.format(port=_closed_port())
    res = subprocess.run([sys.executable, "-m", "verify", "--executor", "ray", "--address", address, "--only",
                          "rcfl.lemma2.gap", "--no-json", "--no-markdown"], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.count("\n") == 1 and "cannot reach the Ray cluster" in res.stderr and "Traceback" not in res.stderr
    assert "[1/" not in res.stdout


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--seed", "-1"], ["--timeout", "-1"], ["--timeout", "inf"], ["--executor", "dask"], ["--bogus"]):
        code, out, err = _cli(argv, capsys)
        assert code == 2 and err.count("\n") == 1 and err.startswith("python -m verify: error:"), (argv, err)


def test_report_that_becomes_unwritable_mid_run_fails_the_run(register, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The path checked out at the start; a claim then replaces the report folder by a file: the run still
    ends (every claim runs), says which report it could not write, and exits 1."""
    import shutil

    folder = tmp_path / "reports"

    def sabotage(ctx: Context) -> Outcome:
        shutil.rmtree(folder)
        folder.write_text("not a folder")
        return Outcome("verified", measured=1.0, bound=2.0)

    register("a_sabotage", fn=sabotage)
    register("b_after", Outcome("verified", measured=1.0, bound=2.0))
    code = runner.main(["--only", PREFIX + "*", "--json", str(folder / "r.json"), "--no-markdown", "--timeout", "0"])
    out = capsys.readouterr().out
    assert code == 1 and "[ 2/2]" in out and "cannot write the report" in out and "reports not written" in out


def test_markdown_cells_keep_plugin_text_in_one_cell(register, tmp_path: Path) -> None:
    # (a line break in a citation is refused at registration: tests/test_proofs_forgeries_words.py)
    register("pipe", Outcome("verified", measured=1.0, bound=2.0, relation="|x|"), citation="A | B C")
    md = tmp_path / "r.md"
    assert runner.main(["--only", PREFIX + "*", "--no-json", "--markdown", str(md)]) == 0
    header, row = [ln for ln in md.read_text().splitlines() if ln.startswith("| id |") or ln.startswith("| `test")]
    assert "A \\| B C" in row and "\\|x\\|" in row
    assert header.count("|") == row.count("|") - row.count("\\|")
