"""Every reading statement of docs/figures.md, asserted on the data the figure plots.

Each figure module's ``data(quick)`` returns exactly what its ``plot`` draws (``make = save(plot(data(quick)))``);
these tests recompute it in quick mode (the figures' default) and assert what the page says one reads off the
picture, with the numbers the page quotes.  ``data`` is cached per process, so a figure rendered by
tests/test_figures.py in the same run is not computed twice.  Figures whose data take more than about 2 s are
``slow`` (run with ``--full``)."""

from __future__ import annotations

import numpy as np
import pytest

slow = pytest.mark.slow


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


# ---------------------------------------------------------------------------------------------- RC-FL
def test_smoothing_gap_statements() -> None:
    from figures import smoothing_gap as m

    d = m.data(True)
    mus, tau = d["mu"], d["tau"]
    for _, label, g in d["curves"]:
        # every coloured curve stays below the dashed tight bound mu tau log 2 (so below mu tau)
        assert np.all(g <= mus * tau * np.log(2.0) * (1 + 1e-12)), label
    for _, label, g in d["curves"][:3]:  # at small mu the gap is linear in mu: parallel to the bounds
        small = mus <= 1e-3
        assert abs(_slope(mus[small], g[small]) - 1.0) < 0.02, label
    eta, _, g = d["curves"][3]  # eta = min f - 0.25: the gap falls off like exp(-(min f - eta)/mu)
    ok = (g > 1e-250) & (mus < 0.05)
    fit = np.polyfit(1.0 / mus[ok], np.log(g[ok] / mus[ok]), 1)[0]
    assert fit == pytest.approx(-(d["f"].min() - eta), rel=0.05)


@slow
def test_qalpha_path_statements() -> None:
    from figures import qalpha_path as m

    d = m.data(True)
    assert d["per_client"][0] == pytest.approx(d["fedavg_limit"], abs=1e-9)
    assert d["per_client"][-1] == pytest.approx(d["afl_limit"], abs=1e-9)  # reaches AFL's max_i f_i
    assert (round(d["scalar"][-1], 2), d["afl_limit"]) == (2.04, 3.1)  # the scalar path stops short of AFL
    w = d["worst"]
    peak = int(np.argmax(w))
    assert 0 < peak < len(w) - 1 and w[peak] > w[0] + 0.2 and w[peak] > w[-1] + 0.5  # not monotone
    assert d["worst_client"][peak] == int(np.argmin(d["p"])) and d["p"].min() == 0.08  # the lowest-weight client
    assert (round(w[peak], 2), round(w[0], 2), round(w[-1], 2)) == (2.62, 2.40, 1.98)
    assert w[-1] == pytest.approx(d["afl"], rel=1e-6)  # AFL brings it down to the minimax value


@slow
def test_rcfl_theorem1_statements() -> None:
    from figures import rcfl_theorem1 as m

    d = m.data(True)
    gaps = m.decades(d)
    rounded = {k: (round(lo, 1), round(hi, 1)) for k, (lo, hi) in gaps.items()}
    assert rounded["bounds"] == (2.0, 4.9)  # the bounds are 2.0 to 4.9 decades above the measured curve
    # the exact worst case: the bound's slack (1.2-2.0 decades) is smaller than how benign the instance is (2.9-3.0)
    assert rounded["slack"] == (1.2, 2.0) and rounded["benign"] == (2.9, 3.0)
    assert gaps["slack"][1] < gaps["benign"][0]
    per = [{k: (round(lo, 1), round(hi, 1)) for k, (lo, hi) in g.items()} for g in m.decades_by_panel(d)]
    assert per == [  # what the right panel prints, per kappa = 1, 5, 10
        {"bounds": (2.9, 4.9), "slack": (1.2, 1.9), "benign": (2.9, 3.0)},
        {"bounds": (2.3, 4.9), "slack": (1.8, 2.0), "benign": (2.9, 2.9)},
        {"bounds": (2.0, 4.9), "slack": (2.0, 2.0), "benign": (2.9, 2.9)}]
    assert [p["kappa"] for p in d["panels"]] == [1, 5, 10] and d["budget"] == 12
    for p in d["panels"]:
        meas = p["measured"]["002"]
        assert m.relative_gap(p["measured"]["000"], meas) < 1.5e-4  # the two outputs agree within 0.014% ...
        assert np.all(meas < d["smooth"]) and np.all(meas > 0.5 * d["smooth"])  # near the smoothing term, below it
        assert p["fast"][-1] < meas[-1]  # 100 times the step converges faster
        ts, wc = p["pep"]
        on_grid = [(list(d["TNs"]).index(t), w) for t, w in zip(ts, wc, strict=True) if t in d["TNs"]]
        assert on_grid and all(w + d["smooth"] < p["bound"]["002"][j] for j, w in on_grid)  # below the bound
        if p["kappa"] > 1:
            assert m.relative_gap(p["cert"], p["bound"]["002"]) < 1e-3  # the certificate lies on the 002 band
    out_gap = max(m.relative_gap(p["measured"]["000"], p["measured"]["002"]) for p in d["panels"])
    assert f"{100 * out_gap:.2g}" == "0.014"  # ... as the legend prints


@slow
def test_rcfl_theorem2_statements() -> None:
    from figures import rcfl_theorem2 as m

    d = m.data(True)
    assert f"{100 * m.spread(d, 1.0):.2g}" == "0.016"  # the 95% half-width: at most 0.016% of the mean, thinner than the line
    lo, hi = m.decades(d)
    assert (round(lo, 1), round(hi, 1)) == (3.3, 5.8)  # 3.3 to 5.8 decades below the bounds
    per = [(round(g["bounds"][0], 1), round(g["bounds"][1], 1)) for g in m.decades_by_panel(d)]
    assert per == [(3.7, 5.8), (3.5, 5.6), (3.3, 5.4)] and [p["K"] for p in d["panels"]] == [2, 5, 10]
    assert d["reps"] == 10 and d["kappa"] == 5
    for p in d["panels"]:
        mean = np.array([r.extra["mean"] for r in p["runs"][1.0]["002"]])
        assert np.all(mean < d["smooth"])  # near the smoothing term, below it


@slow
def test_rcfl_theorem1_every_step_statements() -> None:
    from figures import rcfl_theorem1_every_step as m

    d = m.data(True)
    top = max(float(np.max(c["ratio"])) for c in d["curves"])
    assert round(top, 3) == 0.043 and 1.0 / top >= 20  # at most 0.043: the theorem is loose by 20 or more at rho = 0
    for c in d["curves"]:
        assert np.all(c["ratio"] <= 1.0)
        small = c["step"] <= 1e-3
        assert _slope(c["step"][small], c["ratio"][small]) == pytest.approx(1.0, abs=0.02)  # grows like beta L


@slow
def test_rcfl_theorem1_all_rounds_statements() -> None:
    from fractions import Fraction

    from figures import rcfl_theorem1_all_rounds as m

    d = m.data(True)
    rows = d["rows"]
    assert [r["kappa"] for r in rows] == list(range(1, 9))
    # blue band to beta L = 1 in every row, 40 times the theorem's largest step 1/40 (red, every row); [1, 2] refused
    assert all(r["rho0"] and r["refused"] and r["every_rho"] for r in rows)
    assert m.RHO0_HI == 1 and m.REFUSED == (1, 2) and m.RHO0_HI / m.THM_HI == 40
    assert all(r["admissible"] == 1 / 40 for r in rows) and m.admissible(17) == 1 / 40 > m.admissible(18)
    # the every-rho coefficients c, at most 0.51% of the theorem's 52 (kappa - 1)^2 kappa
    assert [r["c"] for r in rows] == [0, Fraction(17, 32), Fraction(5, 2), 7, 15, Fraction(55, 2), Fraction(91, 2), 70]
    share = max(r["c"] / (52 * (r["kappa"] - 1) ** 2 * r["kappa"]) for r in rows[1:])
    assert 0.0051 <= share <= 0.0051 + 1e-4
    # right: RHS = 4 x proved bound; the ratios at T_N = 1..4; both fall with T_N
    T, worst = d["T"], d["worst"]
    assert list(T) == [1, 2, 3, 4] and np.allclose(d["rhs"] / d["proved"], 4.0, rtol=1e-15, atol=0)
    assert [round(float(x), 1) for x in d["proved"] / worst] == [22.0, 15.3, 12.0, 10.0]
    assert [round(float(x), 1) for x in d["rhs"] / worst] == [88.0, 61.3, 48.0, 40.0]
    assert np.all(np.diff(d["proved"] / worst) < 0)
    # the worst case is the closed form L D0/(2 + 2 beta L (kappa T_N + 2)) within 5e-6 relative
    t, kappa = float(m.STEP_R), m.KAPPA_R
    closed = 1.0 / (2 + 2 * t * (kappa * T + 2))
    assert np.max(np.abs(worst / closed - 1)) < 5e-6
    ratio = lambda TN: (1 + t * (kappa * TN + 2)) / (t * (TN + 1))  # noqa: E731 - the closed form's ratio
    assert np.allclose(ratio(T), d["proved"] / closed, rtol=1e-12)
    assert ratio(10**9) == pytest.approx(kappa, rel=1e-6) and all(ratio(k) > ratio(k + 1) > kappa for k in (1, 10, 1000))


@slow
def test_rcfl_stepsize_region_statements() -> None:
    from figures import rcfl_stepsize_region as m

    d = m.data(True)
    assert np.allclose(d["tops"]["theorem_a"], d["tops"]["theorem_constants"], rtol=1e-12, atol=0)  # one entry
    assert np.all(d["tops"]["exists"] >= d["tops"]["theorem_a"])
    assert np.all(d["thm"] == 1.0 / 40.0) and d["flat"] == 17
    assert f"{m.ratio(d):.0f}" == "69"  # the condition uses at most 1/69 of the certified range
    assert d["kappa"] == [1, 2, 3, 4, 5]
    assert np.all(np.round(d["tops"]["theorem_a"], 2) == 1.73) and np.all(np.round(d["tops"]["exists"], 2) == 1.98)
    g1 = d["grid"][1]
    assert np.all(g1["C_proof"] == 0) and np.all(np.abs(g1["C"]) < 1e-6)  # kappa = 1: both constants 0
    at, every = {}, []
    for k in (2, 3, 4, 5):
        g = d["grid"][k]
        assert g["step"][0] == 0.01 and g["step"][-1] == d["tops"]["theorem_a"][k - 1] and 1 / 40 in g["step"]
        assert np.all(np.isfinite(g["C"])) and np.all(np.diff(g["C"]) > 0)  # certified all along, growing with beta L
        r = m.looseness(d, k)
        assert np.all(r > 1)  # the proof's constant is certified everywhere on the range (above the red line)
        at[k] = float(r[g["step"] == 1 / 40][0])
        every += list(r)
    assert [round(at[k]) for k in (2, 5)] == [52, 78] and at[2] < at[3] < at[4] < at[5]  # 52 to 78 at 1/40
    assert (round(min(every)), round(max(every))) == (7, 93)  # 7 to 93 over the whole range
    assert round(float(m.looseness(d, 2)[-1]), 1) == 7.3  # falls near the end: 7.3 for kappa = 2 at 1.73


# ---------------------------------------------------------------------------------------------- q-FFL
@slow
def test_qffl_uniformity_statements() -> None:
    from figures import qffl_uniformity as m

    d = m.data(True)
    q = d["q"]
    i0, i1 = int(np.nonzero(q == 0)[0][0]), int(np.nonzero(q == 1)[0][0])
    rises_later = False
    for inst in d["instances"]:
        assert inst["variance"][i1] < inst["variance"][i0] and inst["angle"][i1] < inst["angle"][i0]  # Lemmas 6-7
        assert np.allclose(inst["lemma6"], inst["variance"][[i0, i1]], rtol=1e-6)  # squares on the curves
        assert np.allclose(inst["lemma7"], inst["angle"][[i0, i1]], rtol=1e-6)
        later = q >= 1
        rises_later |= bool(np.any(np.diff(inst["variance"][later]) > 0) or np.any(np.diff(inst["angle"][later]) > 0))
    assert rises_later  # past q = 1 the trend is not monotone on every instance
    v1 = d["instances"][1]["variance"]
    assert np.all(np.diff(v1[q >= 2]) > 0)  # instance 1's variance rises again from q = 2


@slow
def test_qffl_lipschitz_statements() -> None:
    from figures import qffl_lipschitz as m

    d = m.data(True)
    ratios = np.concatenate([r["hessian"] / r["estimate"] for r in d["q"].values()])
    assert np.all(ratios <= 1.0)
    assert (round(float(ratios.min()), 2), round(float(ratios.max()), 2)) == (0.17, 0.46)


@slow
def test_qffl_vs_fedsgd_statements() -> None:
    from figures import qffl_vs_fedsgd as m

    d = m.data(True)
    lag = []
    for q, r in d["q"].items():
        for g in (r["qfedsgd"], r["fedsgd"]):
            assert g.min() > -1e-14  # below the exact optimum only by float64 rounding
        a, b = m.rounds_to(r["qfedsgd"], 1e-10), m.rounds_to(r["fedsgd"], 1e-10)
        assert a is not None and b is not None, q
        lag.append(a - b)
    assert lag[0] > 0 and np.all(np.diff(lag) > 0) and lag[-1] > 3 * lag[0]  # the cost in rounds grows with q
    hits = [(m.rounds_to(r["fedsgd"], m.LEVEL), m.rounds_to(r["qfedsgd"], m.LEVEL)) for r in d["q"].values()]
    assert m.LEVEL == 1e-10 and hits == [(8, 12), (18, 25), (68, 106)] and lag == [4, 7, 38]  # the arrows' numbers
    steps = [r["best_lr"] for r in d["q"].values()]  # each panel's own re-tuned step (its legend)
    assert list(d["q"]) == [0.0, 1.0, 5.0] and [float(f"{x:.2g}") for x in steps] == [0.65, 0.069, 3.1e-7]
    assert np.log10(steps[0] / steps[-1]) > 6  # a range of six decades
    clamped = sum(int(np.sum(r["qfedsgd"] <= m.FLOOR) + np.sum(r["fedsgd"] <= m.FLOOR)) for r in d["q"].values())
    assert clamped > 0  # the clamp the axis label states is used


# ---------------------------------------------------------------------------------------------- FedFV
@slow
def test_fedfv_conflict_bounds_statements() -> None:
    from figures import fedfv_conflict_bounds as m

    d = m.data(True)
    one = d["one_sided"]
    assert np.all(one["measured"] <= one["thm1"] + 1e-12) and np.all(one["measured"] <= one["thm2"] + 1e-12)
    ab = d["absolute"]
    assert np.all(ab["thm1"][:, -1] == 0) and np.all(ab["thm2"][:, -1] == 0)  # both bounds are 0 at k = m
    assert np.all(ab["measured"][:, -1] > 0)  # ... while the conflict is not, on every set


def test_fedfv_pareto_statements() -> None:
    from figures import fedfv_pareto_2client as m

    d = m.data(True)
    runs = d["runs"]
    assert np.all(runs[(0, 0.5)]["rho"][60:] < 1e-8)  # from (3, 3) with lr = 0.5: rho ~ 4e-9 after round 60
    assert runs[(0, 0.5)]["rho"][-1] == pytest.approx(4e-9, rel=0.1)
    last = slice(-100, None)
    for i in (1, 2):  # from the other two starts rho stays between 5e-4 and 3e-2 over rounds 200-300
        for lr in m.LRS:
            r = runs[(i, lr)]["rho"][last]
            assert 5e-4 <= r.min() and r.max() <= 3e-2, (i, lr)
    assert runs[(0, 0.05)]["rho"][-1] == pytest.approx(1.5e-4, rel=0.05)  # from (3, 3), lr = 0.05: 1.5e-4 at 300
    ends = {k: run["iterates"][-1] for k, run in runs.items()}
    assert round(max(m.distance_to_pareto(d, w) for w in ends.values()), 3) == 0.026  # every run ends within 0.026
    assert np.allclose(ends[(0, 0.5)], [4 / 3, 4 / 3], atol=1e-6)  # from (3, 3) on the Pareto set, at (4/3, 4/3)
    (x0, x1), (y0, y1) = m.ZOOM  # the zoom shows every end and both points of the 2-cycle
    for w in [*ends.values(), *d["eq10"]["iterates"][-2:]]:
        assert x0 < w[0] < x1 and y0 < w[1] < y1
    for i in (1, 2):  # lr = 0.5 from the other two starts zig-zags across the Pareto set up to its last round
        side = np.sign([_pareto_side(d, w) for w in runs[(i, 0.5)]["iterates"][-20:]])
        assert np.any(side > 0) and np.any(side < 0), i
    rho = d["eq10"]["rho"]  # eq. 10 as printed: a 2-cycle with rho 0.316 / 0.389, away from the Pareto set
    assert rho[-1] == pytest.approx(rho[-3], rel=1e-9) and abs(rho[-1] - rho[-2]) > 0.05
    assert sorted((round(rho[-1], 3), round(rho[-2], 3))) == [0.316, 0.389]
    cyc = d["eq10"]["iterates"][-2:]
    assert np.allclose(cyc, d["eq10"]["iterates"][-4:-2], rtol=1e-9)  # a 2-cycle ...
    assert np.allclose(cyc[:, 0], cyc[:, 1], rtol=1e-12)  # ... of two points on the diagonal ...
    assert sorted(round(m.distance_to_pareto(d, w), 2) for w in cyc) == [0.53, 0.65]  # ... 0.53 and 0.65 away ...
    assert min(cyc[:, 0]) < 4 / 3 < max(cyc[:, 0])  # ... on either side of the Pareto set (it crosses at 4/3)


def _pareto_side(d: dict, w: np.ndarray) -> float:
    """Which side of the drawn Pareto curve ``w`` lies on: the sign of the cross product of the curve's direction at
    the nearest vertex with ``w`` minus that vertex."""
    P = d["pareto"]
    k = min(max(int(np.argmin(np.linalg.norm(P - w, axis=1))), 1), len(P) - 2)
    t, v = P[k + 1] - P[k - 1], w - P[k]
    return float(t[0] * v[1] - t[1] * v[0])


def test_fedfv_pareto_window_range() -> None:
    from figures.fedfv_pareto_2client import window_range

    x, lo, hi = window_range(np.array([3.0, 1, 2, 5, 4, 0, 7]), width=3)
    assert x.tolist() == [1.0, 4.0, 6.0] and lo.tolist() == [1, 0, 7] and hi.tolist() == [3, 5, 7]


def test_fedfv_order_effect_statements() -> None:
    from figures import fedfv_order_effect as m

    d = m.data(True)
    a, r, v = d["ascending"], d["random"], d["reversed"]
    lowest = (a < r) & (a < v)
    assert 2 < int(lowest.sum()) < len(a)  # the loss-ascending order is lowest for most seeds, not all
    assert a.mean() < r.mean() < v.mean()
    sem = {k: x.std(ddof=1) / np.sqrt(x.size) for k, x in d.items()}
    assert abs(a.mean() - r.mean()) < sem["ascending"] + sem["random"]  # the error bars overlap


# ------------------------------------------------------------------------------------ relative fairness
def test_relfair_penguins_statements() -> None:
    from fairtheory.instances.relative import penguins_phi_grid
    from figures import relfair_penguins as m

    d = m.data(True)
    c = d["Delta_3"]
    assert set(np.round(penguins_phi_grid(True), 12)) <= set(np.round(c["phi"], 12))  # the claim's grid, refined
    assert np.all(np.diff(c["phi"][c["phi"] < 0.02]) <= 0.0025 + 1e-12)  # to steps of 0.0025 below 0.02
    idx = dict(zip(np.round(c["phi"], 4), c["index"], strict=True))
    moving = c["index"] > 1 + 1e-6
    assert moving.sum() == 6 and np.all(np.diff(c["index"][moving]) < 0)  # Delta_3: the index falls steadily ...
    assert (round(idx[0.0], 2), round(idx[0.005], 2), round(idx[0.01], 2), round(idx[0.0125], 2)) == (3.97, 3.08, 1.80, 1.07)
    assert m.equal_from(c) == 0.015 and all(abs(v - 1) < 1e-6 for p, v in idx.items() if p >= 0.015)  # ... 1 from 0.015
    F = c["losses"]
    eq = c["phi"] >= 0.015
    assert np.all(np.abs(F[eq] - F[eq].mean(axis=1, keepdims=True)) < 1e-6 * F[eq].max())  # all three equal there
    assert np.all(np.abs(F[:, 0] - F[:, 1]) < 1e-6 * F.max())  # Adelie's and Chinstrap's equal at every phi
    assert (round(F[0, 0], 2), round(F[-1, 0], 2)) == (24.64, 24.82) and np.all(np.diff(F[:, 0]) >= -1e-6 * F.max())
    g = dict(zip(np.round(c["phi"], 4), F[:, 2], strict=True))
    assert (round(g[0.0], 1), round(g[0.01], 1), round(F[-1, 2], 1)) == (6.2, 13.7, 24.8)  # Gentoo's loss rises
    c = d["C(2/3)"]  # C(2/3): falls more slowly and is 1 from phi = 0.08 on
    idx = dict(zip(np.round(c["phi"], 4), c["index"], strict=True))
    assert (round(idx[0.0], 2), round(idx[0.01], 2), round(idx[0.02], 2), round(idx[0.04], 3), round(idx[0.06], 3)) \
        == (1.66, 1.54, 1.26, 1.043, 1.013)
    assert m.equal_from(c) == 0.08 and all(abs(v - 1) < 1e-6 for p, v in idx.items() if p >= 0.08)


def test_relfair_prop9_statements() -> None:
    from figures import relfair_prop9 as m

    d = m.data(True)
    for b in d["brackets"].values():
        assert np.all(b["upper"] >= d["ratio"]) and np.all(b["lower"] <= d["ratio"])
        width = b["upper"] - b["lower"]
        assert np.all(np.diff(width) < 0) and width[-1] < 0.5 * width[0]  # each pair closes in as phi -> 1


@slow
def test_relfair_scaffpd_rate_statements() -> None:
    from figures import relfair_scaffpd_rate as m

    d = m.data(True)
    assert round(d["fit_accelerated"], 2) == -4.80  # slope -2 and beyond
    assert round(d["fit_noisy"], 2) == -0.85  # the noisy mean flattens: shallower than both references
    r, noisy = d["r"], d["noisy"]
    ref = noisy[9] * (r / 10.0) ** -2.0
    assert np.all(noisy[r > 100] > ref[r > 100])  # it crosses the slope -2 line and stays above it after round 100
    assert d["accelerated"][-1] < d["floor"] and d["constant"][-1] < d["floor"]  # both go below the grey line


@slow
def test_relfair_lorenz_statements() -> None:
    from figures import relfair_lorenz as m

    d = m.data(True)
    gini = {k: v["gini"] for k, v in d.items()}
    top = {k: float(v["losses"].max()) for k, v in d.items()}
    ia = next(k for k in d if k.startswith("Scaff-PD-IA"))
    assert min(gini, key=gini.get) == ia  # Scaff-PD-IA is the most equal
    assert (round(gini[ia], 3), round(top[ia], 2), round(top["AFL"], 2)) == (0.162, 55.73, 38.92)
    assert top[ia] > top["AFL"] and min(top, key=top.get) == "AFL"  # ... while its largest loss stays above AFL's


# ------------------------------------------------------------------------------------------ worst cases
@slow
def test_worstcase_traced_statements() -> None:
    from figures import worstcase_traced as m

    d = m.data(True)
    c = d["curves"]
    scaffold = next(v for k, v in c.items() if k.startswith("Scaffold"))
    fedavgm = next(v for k, v in c.items() if k.startswith("FedAvgM"))
    assert np.allclose(scaffold, d["gd"], rtol=1e-4)  # warm-started Scaffold lies on the GD line
    assert np.all(c["FedAvg"] > d["gd"] * (1 + 1e-3))  # FedAvg stays above it
    assert fedavgm[2] > fedavgm[1]  # FedAvgM is not monotone in T: it rises from T = 2 to T = 3


@slow
def test_worstcase_stochastic_statements() -> None:
    from figures import worstcase_stochastic as m

    d = m.data(True)
    sgd, bound = d["sgd"], d["sgd_bound"]
    assert np.all(sgd[0.0] < bound / 50)  # exact gradients: far below the theorem's right-hand side
    assert list(d["T"]) == [1, 2, 3]
    assert sgd[1e5][0] < bound[0] and sgd[1e5][1] < bound[1] and sgd[1e5][2] > bound[2]  # crosses between T = 2 and 3
    Ti, inst, ibound = d["T_inst"], d["instance"], d["inst_bound"]
    assert list(Ti) == list(range(1, 65)) and np.allclose(ibound, 2.0 / (m.BETA * Ti))
    for s2 in m.SIGMA2:  # the instance is a lower bound on the worst case, at most 0.6% below it where both are drawn
        pep, low = sgd[s2], inst[s2][: len(d["T"])]
        assert np.all(low <= pep * (1 + 1e-6)) and np.all(low >= 0.994 * pep), s2
    # the instance, hence the worst case, stays above the bound from T = 3 (1e5), 9 (1e4), 35 (1e3) to 64 ...
    assert [m.first_above(inst[s2], ibound, Ti) for s2 in m.SIGMA2] == [None, 35, 9, 3]
    assert np.all(inst[1e5][2:] > ibound[2:])
    assert not np.any(inst[0.0] > ibound)  # ... never at sigma2 = 0
    fp = d["fedprox"]
    for g in m.GAMMAS:
        assert np.allclose(fp[f"n=1 g={g}"], d["ppm"][g], rtol=1e-4)  # one client lies on the PPM band
        assert np.all(fp[f"n=1 g={g}"] < d["taylor"][g])  # below Taylor et al.'s bound
    red = fp["n=2 rho2=1"]
    assert np.all(np.diff(red) < 0)  # two clients, rho2 = 1: decreasing over the rounds shown ...
    assert (round(red[0], 2), round(red[-1], 2)) == (0.29, 0.13)
    ratio = red / fp[f"n=1 g={m.GAMMAS[0]}"]
    assert np.all(np.diff(ratio) > 0) and (round(ratio[0], 2), round(ratio[-1], 2)) == (1.17, 1.77)  # ... more slowly


@slow
def test_worstcase_minmax_statements() -> None:
    from figures import worstcase_minmax as m

    d = m.data(True)
    T, pep, mohri, text = d["T"], d["pep"], d["mohri"], d["textbook"]
    assert np.all(pep < mohri) and np.all(pep <= text * (1 + 1e-6))  # every circle below both lines
    ratio = pep / text
    assert [round(float(x), 2) for x in ratio[:3]] == [0.80, 0.96, 0.99] and list(T[:3]) == [1, 2, 3]
    assert np.all(np.abs(ratio[T >= 4] - 1) < 1e-6)  # meets the textbook bound from T = 4 on
    assert np.allclose(pep[T >= 4] / mohri[T >= 4], 5 / 12, rtol=1e-6) and round(float(pep[-1] / mohri[-1]), 3) == 0.417
    assert T[-1] == 8
    last = list(d["last"].values())
    afl, pd1, pd2 = (np.asarray(v) for v in last)
    assert list(d["last_T"]) == [1, 2, 3, 4]
    for v in (afl, pd1):
        assert np.all(np.diff(v) < 0)  # fall over T = 1..4
    assert (round(afl[0], 2), round(afl[-1], 2), round(pd1[0], 2), round(pd1[-1], 2)) == (1.53, 0.68, 1.56, 0.64)
    assert np.all(pd2[:3] < np.minimum(afl[:3], pd1[:3]))  # kappa = 2 is the lowest at T = 1, 2, 3 ...
    assert (round(pd2[2], 3), round(pd2[3], 3)) == (0.720, 0.713) and pd2[3] > max(afl[3], pd1[3])  # ... ends above


def test_worstcase_stochastic_instance_closed_form_matches_enumeration() -> None:
    """The explicit instance's closed form equals the average over every noise sequence (+-sqrt(sigma2) each round)
    of local SGD on f = L x^2/2 from x0 = sqrt(D0), output the mean of w_1..w_T."""
    import itertools

    from figures import worstcase_stochastic as m

    for T in (1, 2, 5):
        for s2 in (0.0, 1e3, 1e5):
            vals = []
            for signs in itertools.product((-1.0, 1.0), repeat=T):
                w, ws = np.sqrt(m.D0), []
                for e in signs:
                    w = w - m.BETA * (m.L * w + e * np.sqrt(s2))
                    ws.append(w)
                vals.append(0.5 * m.L * np.mean(ws) ** 2)
            assert m.quadratic_instance(np.array([T]), s2)[0] == pytest.approx(np.mean(vals), rel=1e-12), (T, s2)
