"""benchmarks/bench_autolyap.py: the row logic works without AutoLyap (its column is skipped when not importable)."""

from __future__ import annotations

import json
from fractions import Fraction as Q

import pytest

from benchmarks import bench_autolyap as B


def test_rows_are_fixed_and_well_formed() -> None:
    ids = [r.id for r in B.ROWS]
    assert len(ids) == len(set(ids))
    for r in B.ROWS:
        assert r.kind in ("linear", "sublinear") and r.measure in ("f", "dist", "res")
        assert all(isinstance(v, Q) for v in r.params.values())
        assert not r.closed or r.closed in B._CLOSED
    # issue 43's list: GD at h = 1, 3/2, 1.7 (convex) and mu/L = 1/10, 1/4; extragradient at gamma = 0.5, 0.9
    hs = {r.params["h"] for r in B.ROWS if r.method == "gd" and r.kind == "sublinear"}
    assert {Q(1), Q(3, 2), Q(17, 10)} <= hs
    assert {Q(1, 10), Q(1, 4)} <= {r.params["mu"] for r in B.ROWS if r.method == "gd" and r.kind == "linear"}
    assert {Q(1, 2), Q(9, 10)} == {r.params["gamma"] for r in B.ROWS if r.method == "eg"}
    assert {"hb", "agm", "ppm", "drs", "dys", "km", "halpern", "local_gd"} <= {r.method for r in B.ROWS}


def test_classify_every_mark() -> None:
    c = B.classify
    # ours exact and at most AutoLyap's float; both above the exact worst case
    assert c("sublinear", Q(1, 20), 0.06, 0.045) == B.MARK_LEQ
    assert c("sublinear", Q(3, 46), 0.0454545, 1 / 22 * 0.999) == B.MARK_GT
    # AutoLyap below a closed-form tight rate by float error (issue 43: 0.80999981 < 0.81)
    assert c("linear", None, 0.80999981, 0.81, closed=0.81).startswith(f"{B.MARK_AL_BELOW}; {B.MARK_NOT_US}")
    assert c("linear", Q(81, 100), 0.80999981, 0.81, closed=0.81) == f"{B.MARK_AL_BELOW}; ours = the exact value"
    assert c("linear", Q(9, 23), 0.390624, 0.39, closed=0.390625).startswith(f"{B.MARK_AL_BELOW}; ours = 1.0017")
    # against our PEP's float value (no closed form) a difference below PEP_RTOL is no evidence
    assert c("sublinear", Q(1, 18), 0.0348937678, 0.034893769) == B.MARK_GT
    assert c("sublinear", Q(1, 18), 0.0348, 0.034893769).startswith(B.MARK_AL_BELOW)
    # a linear row without a closed form has only an estimate: falling below it is a note, not the error mark
    m = c("linear", None, 0.875, 0.903)
    assert m.startswith(B.MARK_NOT_US) and "below the N-step estimate" in m
    assert c("linear", Q(8, 10), 0.9, 0.9033) == B.MARK_OURS_BELOW_EST
    # the closed form is the reference when present, not the float PEP value
    assert c("linear", Q(81, 100), 0.81, 0.8100001, closed=0.81) == B.MARK_LEQ
    # a soundness failure of ours is reported before anything else
    assert c("linear", Q(80, 100), 0.9, 0.81, closed=0.81) == B.MARK_OURS_BELOW
    assert c("sublinear", Q(1, 23), None, 1 / 22) == B.MARK_OURS_BELOW
    m = c("linear", None, 0.9, 0.81, ours_why="no mu= template")
    assert m.startswith(B.MARK_NOT_US) and "no mu= template" in m
    m = c("sublinear", Q(1, 10), None, 1 / 22, autolyap_why="not installed")
    assert m.startswith(B.MARK_NO_AL) and "not installed" in m
    # exact comparison: equal values are "<="
    assert c("sublinear", Q(1, 4), 0.25, 0.2) == B.MARK_LEQ
    with pytest.raises(ValueError, match="kind"):
        c("quadratic", Q(1), 1.0, 1.0)


def test_closed_forms() -> None:
    r = {x.id: x for x in B.ROWS}
    assert B.closed_form(r["gd-f-h1"]) == pytest.approx(1 / 22)
    assert B.closed_form(r["gd-sc-dist-q0.1-h1"]) == pytest.approx(0.81)
    assert B.closed_form(r["gd-sc-dist-q0.25-h1.7"]) == pytest.approx(0.49)
    assert B.closed_form(r["ppm-sc-dist-q0.1"]) == pytest.approx(1 / 1.44)
    assert B.closed_form(r["gd-f-h1.5"]) is None


def test_one_row_end_to_end_without_autolyap(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(B, "autolyap_available", lambda: False)
    # the fast hand template only (the searched potential takes seconds): f(x_N) - f* <= 3/(4 N h + 2)
    monkeypatch.setattr(B, "_our_attempts", lambda row: [
        ("classical", lambda pp: pp("gd", h=(Q(1), Q(1)), potential="classical"))])
    row = B.Row("gd-f-h1-N2", "gd", "sublinear", "f", {"h": Q(1)}, N=2, closed="drori_teboulle")
    out = tmp_path / "t.json"
    res = B.run([row], out)
    rec = json.loads(out.read_text())["rows"][0]
    assert rec == json.loads(json.dumps(res[0], default=str))
    assert rec["autolyap"]["value"] is None and rec["autolyap"]["status"] == "not installed"
    wc = rec["worst_case"]
    assert wc["wc"] == pytest.approx(1 / 10, rel=1e-6) and wc["closed"] == pytest.approx(1 / 10)
    # ours = the smaller of the potential's 3/10 and the exact 2-step certificate's 1/10 (= Drori-Teboulle, tight)
    assert Q(rec["ours"]["potential"]["value"]) == Q(3, 10) and rec["ours"]["potential"]["label"] == "classical"
    assert Q(rec["ours"]["exact"]["value"]) == Q(1, 10)
    assert Q(rec["ours"]["value"]) == Q(1, 10) and rec["ours"]["template"] == f"{B.EXACT_ROUTE} (N = 2)"
    assert rec["ours"]["at"] == {"2": "1/10"}
    assert rec["mark"].startswith(B.MARK_NO_AL)
    assert "gd-f-h1-N2" in B.markdown(res)
    B.main(["--table", str(out)])                    # the table of an earlier run, without re-running


def test_linear_row_worst_case_rate_and_ours(monkeypatch) -> None:
    monkeypatch.setattr(B, "autolyap_available", lambda: False)
    # the given rate is checked (no bisection): ||x_N - x*||^2 <= (9/16)^N D0 at h = 1, mu = 1/4
    monkeypatch.setattr(B, "_our_attempts", lambda row: [
        ("rate", lambda pp: pp("gd", h=1, mu=Q(1, 4), rate=Q(9, 16), measure="distance"))])
    row = B.Row("gd-sc", "gd", "linear", "dist", {"h": Q(1), "mu": Q(1, 4)}, N=1, N2=2, closed="gd_quadratic")
    rec = B.run_row(row)
    assert rec["worst_case"]["rate"] == pytest.approx(0.5625, rel=1e-6)
    assert rec["worst_case"]["wc_N1"] == pytest.approx(0.5625, rel=1e-6)
    assert Q(rec["ours"]["value"]) == Q(9, 16) and rec["ours"]["at"] == {"1": "9/16", "2": "81/256"}
    # a fixed-horizon certificate gives no rate: the linear row keeps the potential's
    assert rec["ours"]["exact"]["value"] is None and rec["ours"]["exact"]["why"] == B.NO_RATE_WHY
    assert rec["mark"].startswith(B.MARK_NO_AL)


def test_unknown_method_is_not_expressible_with_both_reasons(monkeypatch) -> None:
    monkeypatch.setattr(B, "autolyap_available", lambda: False)
    row = B.Row("ppm", "ppm", "sublinear", "f", {"gamma": Q(1)}, N=1, closed="ppm_convex")
    rec = B.run_row(row)
    assert rec["ours"]["value"] is None and "method must be" in rec["ours"]["why"]
    assert "implicit step" in rec["ours"]["why"]            # the N-step route's reason too
    assert rec["mark"].startswith(B.MARK_NOT_US)
    assert "implicit step" in B._short(rec["mark"]) and B._short(rec["mark"]).startswith(B.MARK_NOT_US)


def test_km_is_expressed_by_its_exact_n_step_certificate(monkeypatch) -> None:
    monkeypatch.setattr(B, "autolyap_available", lambda: False)
    row = B.Row("km", "km", "sublinear", "res", {"lam": Q(1, 2)}, N=1)
    rec = B.run_row(row)
    assert rec["ours"]["potential"]["value"] is None and "method must be" in rec["ours"]["potential"]["why"]
    v = Q(rec["ours"]["value"])
    assert rec["ours"]["template"] == f"{B.EXACT_ROUTE} (N = 1)" and v == Q(rec["ours"]["exact"]["value"])
    # never below the exact worst case; within the PEP's float accuracy of it (the certificate is tight)
    assert float(v) >= rec["worst_case"]["wc"] * (1 - B.OURS_RTOL)
    assert float(v) <= rec["worst_case"]["wc"] * (1 + 1e-6)
    assert rec["mark"].startswith(B.MARK_NO_AL)


def test_best_of_takes_the_smaller_exactly_and_names_its_source() -> None:
    pot = {"value": Q(15, 437), "label": "default (search)", "at": {5: Q(15, 437)}}
    ex = {"value": Q(1, 32), "label": "pep-dual N-step (N = 5)", "at": {5: Q(1, 32)}}
    assert B.best_of(pot, ex) == (Q(1, 32), "pep-dual N-step (N = 5)", {5: Q(1, 32)})
    worse = {"value": Q(1, 18), "label": "pep-dual N-step (N = 5)", "at": {5: Q(1, 18)}}
    assert B.best_of(pot, worse) == (Q(15, 437), "default (search)", {5: Q(15, 437)})
    tie = {"value": Q(15, 437), "label": "pep-dual N-step (N = 5)", "at": {5: Q(15, 437)}}
    assert B.best_of(pot, tie)[1] == "default (search) = pep-dual N-step (N = 5)"
    # one route only; none
    none = {"value": None, "label": "", "why": "x"}
    assert B.best_of(none, ex)[0] == Q(1, 32) and B.best_of(pot, none)[0] == Q(15, 437)
    assert B.best_of(none, none) == (None, "", {})
    # exact comparison: a bound one part in 10^30 smaller wins
    tiny = {"value": Q(15, 437) - Q(1, 10**30), "label": "n", "at": {5: Q(15, 437) - Q(1, 10**30)}}
    assert B.best_of(pot, tiny)[1] == "n"


def _gd_row(n: int = 1) -> B.Row:
    return B.Row(f"gd-f-h1-N{n}", "gd", "sublinear", "f", {"h": Q(1)}, N=n, closed="drori_teboulle")


def test_a_certificate_is_checked_before_it_is_used(monkeypatch) -> None:
    row = _gd_row(1)
    tpl = B.exact_template(row)
    good = B.exact_certificate(row, tpl)
    assert B.accept_exact(tpl, good) == Q(1, 6)              # Drori-Teboulle at N = 1, h = 1: 1/(4 + 2)
    # forgeries: the bound lowered; a multiplier edited; the certificate of another horizon / step; not pep-dual
    low = json.loads(json.dumps(good))
    low["statement"]["bound"]["value"] = "1/7"
    edited = json.loads(json.dumps(good))
    k, m = edited["evidence"]["multipliers"][0]
    edited["evidence"]["multipliers"][0] = [k, str(Q(m) / 2)]
    other_n = B.exact_certificate(_gd_row(2), B.exact_template(_gd_row(2)))
    other_h = B.exact_certificate(B.Row("h", "gd", "sublinear", "f", {"h": Q(1, 2)}, N=1),
                                  B.exact_template(B.Row("h", "gd", "sublinear", "f", {"h": Q(1, 2)}, N=1)))
    for forged, why in ((low, "refuses"), (edited, "refuses"), (other_n, "not the row's"), (other_h, "not the row's"),
                        ({"kind": "pep-potential"}, "pep-dual"), ("x", "pep-dual")):
        with pytest.raises(ValueError, match=why):
            B.accept_exact(tpl, forged)
    # end to end: a forged certificate never enters "ours" (the potential's bound is used, the refusal recorded)
    monkeypatch.setattr(B, "exact_certificate", lambda r, t: low)
    monkeypatch.setattr(B, "_our_attempts", lambda r: [
        ("classical", lambda pp: pp("gd", h=(Q(1), Q(1)), potential="classical"))])
    ours = B.our_value(row)
    assert ours["exact"]["value"] is None and "refuses" in ours["exact"]["why"]
    assert Q(ours["value"]) == Q(ours["potential"]["value"]) and ours["template"] == "classical"
    assert Q(ours["value"]) > Q(1, 7)


def test_a_row_that_fails_is_recorded_and_the_table_goes_on(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(B, "autolyap_available", lambda: False)
    bad = B.Row("bad", "no-such-method", "sublinear", "f", {}, N=1)
    res = B.run([bad], tmp_path / "t.json")
    assert res[0]["mark"] == "error" and "no PEP builder" in res[0]["error"]
    assert "error" in B.markdown(res)


def test_autolyap_not_expressible_rows_say_why() -> None:
    pytest.importorskip("autolyap")
    r = {x.id: x for x in B.ROWS}
    for rid in ("local-gd",):
        res = B.autolyap_value(r[rid])
        assert res["value"] is None and res["status"] == "not expressible" and res["why"]


# ------------------------------------------------------------------------------------------------ rigorous lower bounds
def test_momentum_doubles_are_the_irrational_coefficients_to_the_17th_digit() -> None:
    from decimal import Decimal, getcontext

    getcontext().prec = 50
    for method, lam0 in (("agm", Decimal(0)), ("fgm", Decimal(1))):
        lam_prev, lam = lam0, (1 + (1 + 4 * lam0 * lam0).sqrt()) / 2
        if method == "agm":           # PEPit's lambda_0 = 0: y_0 = x_0, a_0 = 0, then (lambda_k - 1)/lambda_{k+1}
            lam_prev, lam = Decimal(1), (1 + Decimal(5).sqrt()) / 2
            exact = [Decimal(0)]
        else:
            exact = []
        while len(exact) < 6:
            exact.append((lam_prev - 1) / lam)
            lam_prev, lam = lam, (1 + (1 + 4 * lam * lam).sqrt()) / 2
        got = B.momentum_doubles(method, 6)
        assert all(isinstance(a, float) for a in got)
        assert all(abs(Decimal(a) - e) <= Decimal(2) ** -52 * max(e, Decimal(1)) for a, e in zip(got, exact, strict=True))
        assert any(Q(a) != 0 for a in got)


def test_momentum_doubles_are_autolyaps() -> None:
    pytest.importorskip("autolyap")
    from autolyap import algorithms as A

    for method, alg in (("agm", B._pepit_agm(A)(gamma=1.0)), ("fgm", A.NesterovFastGradientMethod(gamma=1.0))):
        for k, a in enumerate(B.momentum_doubles(method, 6)):
            M = alg.get_ABCD(k)[0]
            assert M[0, 1] == -a and M[0, 0] == 1 + a      # AutoLyap's entry 1 + a_k: the double of the sum


def test_classify_with_a_rigorous_lower_bound() -> None:
    c = B.classify
    lo = Q(26791838134430, 10**14)                      # a rigorous lower bound just below 3125/11664
    ours = Q(3125, 11664)
    # AutoLyap's float below the lower bound (exactly, no tolerance): its value is no valid bound
    m = c("sublinear", ours, 0.2679183768, 0.26791838134430723, lower=lo)
    assert m.startswith(B.MARK_AL_BELOW) and "ours = the exact value (within 1e-9" in m
    assert c("sublinear", Q(1, 18), 0.0348937678, 0.0348937685, lower=Q(348937685, 10**10)).endswith(
        "ours = 1.59213 x the rigorous lower bound")
    # at or above the lower bound: the plain comparison (the PEP_RTOL rule is not used once a lower bound exists)
    assert c("sublinear", ours, float(lo), 0.2679183813, lower=lo) == B.MARK_GT
    assert c("sublinear", ours, 0.27, 0.2679183813, lower=lo) == B.MARK_LEQ
    # ours below the rigorous lower bound: the soundness failure, even by 1e-30
    assert c("sublinear", lo - Q(1, 10**30), 0.27, 0.2679183813, lower=lo) == B.MARK_OURS_BELOW
    # AutoLyap's own method (the doubles of its parameters) has its own lower bound
    assert c("sublinear", ours, float(lo) * (1 - 1e-12), 0.2679, lower=lo, lower_al=lo * Q(9, 10)) == B.MARK_GT
    # the closed-form rule is kept
    assert c("sublinear", Q(1, 4), 0.2499999985, 0.25, closed=0.25, lower=Q(1, 4) - Q(1, 10**15)) == \
        f"{B.MARK_AL_BELOW}; ours = the exact value"


@pytest.mark.parametrize("method,n", [("agm", 3), ("fgm", 2), ("km", 2)])
def test_n_step_certificates_against_the_rigorous_lower_bound(method: str, n: int) -> None:
    """AGM / FGM (the double-precision momentum, composed exactly) and Krasnoselskii-Mann: the N-step certificate's
    exact bound is at least the rigorous lower bound of the same method and within 1e-9 of it; forgeries refused."""
    row = {r.method: r for r in B.ROWS}[method]
    row = B.Row(row.id, row.method, row.kind, row.measure, row.params, N=n)
    tpl = B.exact_template(row)
    assert not isinstance(tpl, str)
    cert = B.exact_certificate(row, tpl)
    bound = B.accept_exact(tpl, cert)
    lo = B.rigorous_lower(row)
    assert lo["verified"] and lo["lower"] is not None and lo["lower_al"] == lo["lower"]   # dyadic parameters
    assert lo["lower"] <= bound and bound - lo["lower"] <= Q(1, 10**9) * lo["lower"]
    # forged: the bound lowered below the lower bound
    low = json.loads(json.dumps(cert))
    low["statement"]["bound"]["value"] = str(lo["lower"] * Q(999_999, 10**6))
    with pytest.raises(ValueError, match="refuses"):
        B.accept_exact(tpl, low)
    # forged: the statement's coefficients replaced by another method's (same horizon), the evidence kept
    other = {"agm": "fgm", "fgm": "agm", "km": "halpern"}[method]
    orow = {r.method: r for r in B.ROWS}[other]
    otpl = B.exact_template(B.Row(orow.id, orow.method, orow.kind, orow.measure, orow.params, N=n))
    moved = json.loads(json.dumps(cert))
    moved["statement"] = json.loads(json.dumps(otpl)) | {"bound": cert["statement"]["bound"]}
    with pytest.raises(ValueError, match="not the row's|refuses"):
        B.accept_exact(tpl, moved)            # offered for this row: another method's statement
    with pytest.raises(ValueError, match="refuses"):
        B.accept_exact(otpl, moved)           # offered for the other method: its evidence does not prove it


def test_ours_below_the_rigorous_lower_bound_fails_the_row(monkeypatch) -> None:
    monkeypatch.setattr(B, "autolyap_available", lambda: False)
    row = {r.id: r for r in B.ROWS}["km-0.5"]
    row = B.Row(row.id, row.method, row.kind, row.measure, row.params, N=1)
    real = B.rigorous_lower(row)
    rec = B.run_row(row)
    assert not rec["mark"].startswith(B.MARK_OURS_BELOW)
    assert Q(rec["lower"]["lower"]) == real["lower"] and Q(rec["ours"]["value"]) >= real["lower"]
    # a (forged) lower bound above ours: the row is a soundness failure, the run exits with an error
    fake = real | {"lower": Q(rec["ours"]["value"]) + Q(1, 10**30), "lower_al": Q(rec["ours"]["value"]) + Q(1, 10**30)}
    monkeypatch.setattr(B, "rigorous_lower", lambda r: fake)
    assert B.run_row(row)["mark"].startswith(B.MARK_OURS_BELOW)


def test_a_non_dyadic_step_has_two_lower_bounds() -> None:
    """h = 1/10: the exact PEP (our method) and the PEP of the double 0.1 (AutoLyap's) are two PEPs; both bounds are
    verified, lie below Drori-Teboulle's 1/(4 N h + 2) of their own step and within 1e-9 of it."""
    row = B.Row("gd-f-h0.1-N1", "gd", "sublinear", "f", {"h": Q(1, 10)}, N=1, closed="drori_teboulle")
    lo = B.rigorous_lower(row)
    assert lo["verified"] and not lo["dyadic_params"] and lo["lower"] != lo["lower_al"]
    for key, h in (("lower", Q(1, 10)), ("lower_al", Q(0.1))):
        closed = 1 / (4 * h + 2)
        assert lo[key] <= closed and closed - lo[key] <= Q(1, 10**9) * closed


def test_a_forged_lower_bound_never_marks_autolyap(monkeypatch) -> None:
    """The lower bound decides "AutoLyap below the exact worst case": one that does not verify (its value raised above
    its point's objective) is dropped by rigorous_lower: no lower bound, no mark from it."""
    import dataclasses

    from fairtheory.worstcase import exact_lower as EL

    real = EL.lower_bound_pep
    def forged(pep, **kw):
        lb = real(pep, **kw)
        return dataclasses.replace(lb, value=lb.value + Q(1, 10**30))

    monkeypatch.setattr(EL, "lower_bound_pep", forged)
    row = {r.id: r for r in B.ROWS}["km-0.5"]
    row = B.Row(row.id, row.method, row.kind, row.measure, row.params, N=1)
    lo = B.rigorous_lower(row)
    assert lo["lower"] is None and "does not verify" in lo["why"]
