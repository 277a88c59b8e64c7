"""Claims of your own: the open registry, --plugin (file and module), entry points, and failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verify import REGISTRY, Context, Outcome, Tally, claim, run_claim

REPO = Path(__file__).resolve().parents[1]

PLUGIN = textwrap.dedent('''
    """A user's claim module: one claim that holds, one recorded finding."""
    import numpy as np

    from verify import Context, Outcome, Tally, claim


    @claim("mine.sqrt_bound", citation="my notes, Lemma 1", statement="sqrt(x) <= (1 + x)/2 on [0, 10]")
    def sqrt_bound(ctx: Context) -> Outcome:
        tally = Tally()
        for x in ctx.rng("mine.sqrt").uniform(0, 10, size=ctx.count(50, 500)):
            tally.upper(np.sqrt(x), (1 + x) / 2, instance={"x": float(x)})
        return tally.outcome(explain="measured = sqrt(x), bound = (1 + x)/2 (AM-GM)")


    @claim("mine.wrong", citation="my notes, Lemma 2", statement="x^2 >= x on [0, 2]", expected="refuted")
    def wrong(ctx: Context) -> Outcome:
        tally = Tally()
        for x in np.linspace(0, 2, 21):
            tally.lower(x * x, x, instance={"x": float(x)}, size=float(x))
        return tally.outcome(explain="measured = x^2, bound = x")
''')


def _verify(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = dict(os.environ, PYTHONPATH=str(REPO))
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=e)


def test_plugin_file_runs_with_only(tmp_path: Path) -> None:
    plugin = tmp_path / "mine.py"
    plugin.write_text(PLUGIN)
    js, md = tmp_path / "r.json", tmp_path / "r.md"
    res = _verify("--plugin", str(plugin), "--only", "mine.*", "--json", str(js), "--markdown", str(md))
    assert res.returncode == 0, res.stdout + res.stderr
    rows = {r["id"]: r for r in json.loads(js.read_text())["claims"]}
    assert set(rows) == {"mine.sqrt_bound", "mine.wrong"}  # --only applies to plugin claims
    assert rows["mine.sqrt_bound"]["status"] == "verified" and rows["mine.sqrt_bound"]["relation"] == "<="
    assert 0 < rows["mine.sqrt_bound"]["tightness"] <= 1
    assert rows["mine.wrong"]["status"] == "refuted" and rows["mine.wrong"]["as_expected"]
    # the smallest violating x (size = x) is reported: x = 0.1, x^2 = 0.01 < 0.1
    assert rows["mine.wrong"]["counterexample"]["x"] == pytest.approx(0.1)
    assert rows["mine.sqrt_bound"]["source"].startswith("plugin")
    text = md.read_text()
    assert "`mine.sqrt_bound` (plugin)" in text and "AM-GM" in text


@pytest.mark.slow
def test_plugin_listed_and_module_form(tmp_path: Path) -> None:
    (tmp_path / "mypkg_claims.py").write_text(PLUGIN)
    res = _verify("--plugin", "mypkg_claims", "--list", "--only", "mine.*",
                  env={"PYTHONPATH": f"{REPO}{os.pathsep}{tmp_path}"})
    assert res.returncode == 0, res.stderr
    assert "mine.sqrt_bound" in res.stdout and "refuted" in res.stdout and "my notes, Lemma 1" in res.stdout


@pytest.mark.slow
def test_unexpected_plugin_status_fails(tmp_path: Path) -> None:
    plugin = tmp_path / "bad.py"
    plugin.write_text(PLUGIN.replace('expected="refuted"', 'expected="verified"'))
    res = _verify("--plugin", str(plugin), "--only", "mine.*", "--no-json", "--no-markdown")
    assert res.returncode == 1 and "mine.wrong (refuted, expected verified)" in " ".join(res.stdout.split())  # lines wrap


def test_plugin_that_fails_to_import_is_a_bad_argument(tmp_path: Path) -> None:
    # a plugin is an argument: one that fails to import exits 2 with one line, before any claim runs
    plugin = tmp_path / "broken.py"
    plugin.write_text("import numpy\nraise RuntimeError('plugin is broken')\n")
    res = _verify("--plugin", str(plugin), "--only", "rcfl.lemma2.gap", "--no-json", "--no-markdown")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "failed to import" in res.stderr and "plugin is broken" in res.stderr
    assert "[1/" not in res.stdout
    res = _verify("--plugin", str(tmp_path / "missing.py"), "--list", "--no-json", "--no-markdown")
    assert res.returncode == 2 and "does not exist" in res.stderr and not res.stdout


def test_claim_needs_metadata_outside_the_catalogue() -> None:
    with pytest.raises(ValueError, match="citation and statement"):
        claim("mine.nometa")
    with pytest.raises(ValueError, match="statement"):
        claim("mine.nometa", citation="x")
    with pytest.raises(ValueError, match="dotted"):
        claim("nodots", citation="x", statement="y")
    with pytest.raises(ValueError, match="expected"):
        claim("mine.x", citation="x", statement="y", expected="maybe")


def test_registering_an_id_twice_raises_unless_same_function() -> None:
    @claim("test_plugins.twice", citation="c", statement="s")
    def one(ctx: Context) -> Outcome:
        return Outcome("verified")

    try:
        with pytest.raises(KeyError, match="registered twice"):
            @claim("test_plugins.twice", citation="c", statement="s")
            def other(ctx: Context) -> Outcome:
                return Outcome("verified")

        claim("test_plugins.twice", citation="c", statement="s")(one)  # re-import of the same module
        assert run_claim("test_plugins.twice", Context()).status == "verified"
    finally:
        REGISTRY.pop("test_plugins.twice", None)


def test_tally_relations_in_natural_units() -> None:
    t = Tally()
    t.upper(1.0, 4.0)
    t.upper(-1.0, 2.0)
    out = t.outcome()
    assert out.status == "verified" and out.relation == "<=" and out.tightness == pytest.approx(0.25)
    t = Tally()
    t.lower(4.0, 1.0)
    t.lower(2.0, 1.0)
    assert t.outcome().tightness == pytest.approx(0.5) and t.outcome().relation == ">="
    t = Tally()
    assert t.equal(1.0 + 1e-9, 1.0, rtol=1e-8)
    assert not t.equal(2.0, 1.0, rtol=1e-8, instance={"k": 1})
    out = t.outcome()
    assert out.status == "refuted" and out.relation == "==" and out.tightness is None
    assert out.error == pytest.approx(1.0) and out.tolerance == 1e-8 and out.counterexample["k"] == 1
    assert out.measured == 2.0 and out.bound == 1.0  # natural units, not (error, tolerance)
    t = Tally()
    t.upper(0.0, 1.0)
    with pytest.raises(ValueError, match="one relation|records"):
        t.lower(0.0, 1.0)
    t = Tally()
    assert not t.upper(float("nan"), 1.0)
    assert t.outcome().status == "refuted"
    assert Tally().outcome().status == "inconclusive"


@pytest.mark.slow
def test_cli_usage_errors_exit_2_before_any_claim(tmp_path: Path) -> None:
    for args, msg in ((["--seed", "-1"], "seed"), (["--seed", "x"], "seed"), (["--json", ""], "--json"),
                      (["--markdown", str(tmp_path)], "directory")):
        res = _verify(*args, "--only", "rcfl.lemma2.gap")
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert msg in res.stderr and "[1/" not in res.stdout
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if not os.access(ro, os.W_OK):  # (root ignores permissions)
            res = _verify("--json", str(ro / "sub" / "r.json"), "--only", "rcfl.lemma2.gap")
            assert res.returncode == 2 and "not writable" in res.stderr
    finally:
        ro.chmod(0o700)


@pytest.mark.slow
def test_sigint_keeps_finished_claims_and_exits_130(tmp_path: Path) -> None:
    import signal
    import time

    js = tmp_path / "r.json"
    e = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "verify", "--only", "rcfl.*", "--json", str(js), "--no-markdown"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    deadline = time.time() + 120
    while time.time() < deadline and not js.exists():
        time.sleep(0.05)
    assert js.exists(), "no claim finished in time"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    if proc.returncode == 0:  # every claim finished before the signal arrived
        return
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    doc = json.loads(js.read_text())
    assert doc["meta"]["interrupted"] is True and doc["meta"]["complete"] is False
    assert len(doc["claims"]) >= 1 and all(r["status"] for r in doc["claims"])


def test_reports_get_the_umask_mode(tmp_path: Path) -> None:
    from verify.report import atomic_write

    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "r.json", "{}")
    finally:
        os.umask(old)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644
