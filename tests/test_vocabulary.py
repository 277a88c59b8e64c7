"""One vocabulary for step sizes and outputs (:mod:`fairtheory.algorithms.names`).

* Output names: ``"average"`` (mean of the server models, 002 Alg. 1's output, was ``"002"``; Scaffold's was
  ``"avg"``), ``"path_average"`` (mean of every averaged iterate from ``x0``, 000 Alg. 1's output, was ``"000"``),
  ``"last"``.  The old names still work for one release: a DeprecationWarning naming the new one, pointing at the
  caller, and a result equal in every field to the new name's.
* Step sizes: ``lr`` / ``server_lr`` in every API and in ``WorstCase.params``; the normalised step ``h = lr L`` in
  the proof APIs (``prove_potential`` / ``prove_family`` and their certificates' ``bound``).  The removed keywords
  (``beta_L=``, ``beta=``, ``output_version=``) are refused with a FairtheoryTypeError naming the new keyword.
* The exact values through the new names equal the old API's (closed forms recorded from the commit before the
  rename: the certificates' bounds are exact rationals, machine independent).
"""

from __future__ import annotations

import warnings
from fractions import Fraction as Q
from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import names as N
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError


def _fields(wc: Any) -> tuple[Any, ...]:
    return (wc.value, wc.upper, wc.lower, wc.dual_value, wc.gap, wc.dim, wc.n_constraints, wc.status, wc.value_is,
            wc.scale)


def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    """``fn(*args, **kw)`` with every DeprecationWarning an error (the new names never warn)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        return fn(*args, **kw)


def _old(fn: Any, old: str, new: str, *args: Any, **kw: Any) -> Any:
    """``fn(*args, **kw)`` with an old output name: exactly one DeprecationWarning naming ``new``, at this file."""
    with pytest.warns(DeprecationWarning, match=rf"={old!r} is deprecated, use \w+={new!r}") as rec:
        out = fn(*args, **kw)
    dep = [w for w in rec if issubclass(w.category, DeprecationWarning)]
    assert len(dep) == 1 and dep[0].filename == __file__, [(str(w.message), w.filename) for w in dep]
    return out


# ------------------------------------------------------------------ the table
def test_output_renames_table() -> None:
    assert dict(N.OUTPUT_RENAMES) == {"002": "average", "000": "path_average", "avg": "average"}
    assert N.output_name("last", where="f") == "last" and N.output_name("average", where="f") == "average"
    with pytest.warns(DeprecationWarning, match=r"f: output='000' is deprecated, use output='path_average'"):
        assert N.output_name("000", where="f") == "path_average"
    assert N.output_name(3, where="f") == 3  # not a name: left to the caller's validation
    # the API's output names are the certificate statements' names (the trusted kernel speaks the same vocabulary)
    from fairtheory.algorithms.rfedfair import OUTPUTS as RFEDFAIR_OUTPUTS
    from fairtheory.worstcase.local_gd import OUTPUTS
    from fairtheory_kernel.rows import OUTPUTS as KERNEL_OUTPUTS

    assert OUTPUTS == KERNEL_OUTPUTS == ("average", "path_average", "last")
    assert set(RFEDFAIR_OUTPUTS) == {"average", "path_average"}


# ------------------------------------------------------------------ worst cases: old output names, equal results
LGD = dict(n=2, kappa=2, T_N=1, lr=0.25, L=2.0, D0=1.0, rho2=0.5)


@pytest.mark.parametrize("old, new", [("002", "average"), ("000", "path_average")])
def test_local_gd_old_output_names_warn_and_give_identical_results(old: str, new: str) -> None:
    from fairtheory.worstcase import local_gd_worst_case

    a = _quiet(local_gd_worst_case, output=new, **LGD)
    b = _old(local_gd_worst_case, old, new, output=old, **LGD)
    assert _fields(a) == _fields(b) and a.params == b.params and a.params["output"] == new
    assert a.certified() and a.value > 0
    other = _quiet(local_gd_worst_case, output="path_average" if new == "average" else "average", **LGD)
    assert other.value != a.value  # the two outputs differ here, so equality above is not vacuous


def test_local_gd_params_speak_lr() -> None:
    """``WorstCase.params``: ``lr`` (the step as given), no ``beta``; every other entry as in the old API (recorded)."""
    from fairtheory.worstcase import local_gd_worst_case

    w = _quiet(local_gd_worst_case, output="average", **LGD)
    assert w.params == {"n": 2, "kappa": 2, "T_N": 1, "lr": 0.25, "L": 2.0, "D0": 1.0, "rho2": 0.5, "p": [0.5, 0.5],
                        "output": "average", "K": None, "schedule": "rfedfair"}


def test_local_gd_certificates_agree_across_output_names() -> None:
    from fairtheory.worstcase import local_gd_worst_case

    a = _quiet(local_gd_worst_case, output="average", certificate=True, **LGD)
    b = _old(local_gd_worst_case, "002", "average", output="002", certificate=True, **LGD)
    assert a.certificate.check() and b.certificate.check()
    ja, jb = a.certificate.to_json(), b.certificate.to_json()
    assert a.certificate.bound == b.certificate.bound and (ja["statement"], ja["evidence"]) == (jb["statement"], jb["evidence"])
    assert abs(float(a.certificate.bound) - a.value) <= 1e-6 * a.value


def test_scaffold_old_output_name_avg_warns_and_params_speak_lr() -> None:
    from fairtheory.worstcase import scaffold_worst_case

    kw = dict(kappa=2, R=2, lr=0.25, server_lr=0.75, L=1.0, D0=1.0, rho2=1.0)
    a = _quiet(scaffold_worst_case, output="average", **kw)
    b = _old(scaffold_worst_case, "avg", "average", output="avg", **kw)
    assert _fields(a) == _fields(b) and a.params == b.params
    assert a.params == {"algorithm": "scaffold", "n": 2, "kappa": 2, "R": 2, "lr": 0.25, "server_lr": 0.75, "L": 1.0,
                        "D0": 1.0, "rho2": 1.0, "p": [0.5, 0.5], "warm_start": True, "output": "average"}
    last = _quiet(scaffold_worst_case, output="last", **kw)
    assert last.value != a.value
    with pytest.raises(FairtheoryValueError, match="output must be 'last' or 'average'"):
        scaffold_worst_case(output="path_average", **kw)  # Scaffold has no path average


def test_unknown_output_is_a_named_error() -> None:
    from fairtheory.worstcase import local_gd_worst_case

    with pytest.raises(FairtheoryValueError, match="output must be 'average', 'path_average' or 'last'"):
        local_gd_worst_case(output="mean", **LGD)


def test_replay_and_simulator_speak_the_output_names() -> None:
    """The replays return the new names, and the replayed FedAvg reaches the PEP value of the ``"average"`` output."""
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory.worstcase.replay import replay_fedavg, replay_scaffold, simulate_local_gd
    from fairtheory.worstcase.scaffold import scaffold_worst_case

    r = _quiet(local_gd_worst_case, n=2, kappa=2, T_N=2, lr=0.5, L=1.0, D0=1.0, rho2=1.0, output="average",
               return_instance=True)
    rep = replay_fedavg(r.instance)
    assert set(rep) == {"average", "last", "grad_G_star"} and abs(rep["average"] - r.value) <= 1e-4 * r.value
    s = _quiet(scaffold_worst_case, kappa=2, R=2, lr=0.5, L=1.0, D0=1.0, rho2=1.0, output="average",
               return_instance=True)
    reps = replay_scaffold(s.instance)
    assert set(reps) == {"last", "average"} and abs(reps["average"] - s.value) <= 1e-4 * s.value
    (_, outs), = simulate_local_gd(lambda i, x: x, p=np.array([0.5, 0.5]), x0=np.ones(1), lr=0.5, kappa=1, T_N=1)
    assert set(outs) == {"average", "path_average", "last"}


# ------------------------------------------------------------------ rFedFair's outputs
def _logi() -> Any:
    from fairtheory.problems import random_logistic

    return random_logistic(6, 3, 12, rng=np.random.default_rng(1), l2=0.05)


def test_rfedfair_old_output_names_warn_and_are_bit_identical() -> None:
    from fairtheory.algorithms import rfedfair

    prob = _logi()
    kw = dict(T=6, lr=0.05, kappa=2, alpha=0.5, mu=0.1)
    for old, new in (("002", "average"), ("000", "path_average")):
        a = _quiet(rfedfair.run_rfedfair, prob, output=new, **kw)
        b = _old(rfedfair.run_rfedfair, old, new, prob, output=old, **kw)
        assert np.array_equal(np.asarray(a.w), np.asarray(b.w)) and float(a.eta) == float(b.eta)
        assert a.output == b.output == new and a.T_N == b.T_N
        s = a.state
        w_new = _quiet(rfedfair.output, s, new)
        w_old = _old(rfedfair.output, old, new, s, old)
        assert np.array_equal(np.asarray(w_new[0]), np.asarray(w_old[0])) and float(w_new[1]) == float(w_old[1])
    avg = _quiet(rfedfair.run_rfedfair, prob, **kw)  # the default is "average"
    assert avg.output == "average"
    path = _quiet(rfedfair.run_rfedfair, prob, output="path_average", **kw)
    assert not np.array_equal(np.asarray(avg.w), np.asarray(path.w))
    cp = _quiet(rfedfair.run_rfedfair, prob, checkpoints=[1, 4], **kw).checkpoints
    assert set(cp[1]) == set(cp[4]) == {"average", "path_average"} and cp[1]["average"] is None


def test_rfedfair_refuses_output_version_naming_output() -> None:
    from fairtheory.algorithms import rfedfair

    with pytest.raises(FairtheoryTypeError, match=r"run_rfedfair: the keyword output_version= was renamed output="):
        rfedfair.run_rfedfair(_logi(), T=6, lr=0.05, kappa=2, alpha=0.5, mu=0.1, output_version="002")


# ------------------------------------------------------------------ proofs: h = lr L, old outputs, removed beta_L=
LOCAL = (Q(1, 1000), Q(1, 40))


def test_prove_potential_takes_h_and_its_bound_equals_the_old_api() -> None:
    """The exact bounds through ``h=`` equal those the old ``beta_L=`` API gave (recorded: 25, 25/4, 25/11 at
    ``T_N = 0, 3, 10``, ``h = 1/50``; the closed form ``1/(2 h (T_N + 1))``)."""
    from fairtheory.proofs.potential_search import prove_potential

    c = _quiet(prove_potential, "local_gd", n=2, kappa=2, output="average", schedule="rfedfair", rho2=0, h=LOCAL)
    assert c.check()
    assert [c.bound(T_N=T, h=Q(1, 50)) for T in (0, 3, 10)] == [Q(25), Q(25, 4), Q(25, 11)]
    old = _old(prove_potential, "002", "average", "local_gd", n=2, kappa=2, output="002", schedule="rfedfair", rho2=0,
               h=LOCAL)
    assert old.to_json()["statement"] == c.to_json()["statement"] and old.to_json()["evidence"] == c.to_json()["evidence"]
    with pytest.raises(FairtheoryTypeError, match=r"prove_potential: the keyword beta_L= was renamed h=; pass h="):
        prove_potential("local_gd", n=2, kappa=2, beta_L=LOCAL)
    with pytest.raises(FairtheoryValueError, match=r"give exactly T_N= and h="):
        c.bound(T_N=3, beta_L=Q(1, 50))


def test_prove_family_takes_h_and_its_bound_equals_the_old_api() -> None:
    """Recorded from the old API: ``1/2, 7/22, 1/6`` at ``h = 0, 1/7, 1/2`` (kappa = 1, T_N = 2: ``1/(2 + 8 h)``)."""
    from fairtheory.proofs.parametric import prove_family

    kw = dict(n=2, kappa=1, T_N=2, schedule="rfedfair", rho2=0, h=(Q(0), Q(1, 2)))
    c = _quiet(prove_family, "local_gd", output="average", **kw)
    assert c.check() and c.parameter == "h"
    assert [c.bound(h=t) for t in (Q(0), Q(1, 7), Q(1, 2))] == [Q(1, 2), Q(7, 22), Q(1, 6)]
    assert c.bound(Q(1, 7)) == c.bound(h=Q(1, 7))
    old = _old(prove_family, "002", "average", "local_gd", output="002", **kw)
    assert old.to_json()["statement"] == c.to_json()["statement"]
    with pytest.raises(FairtheoryTypeError, match=r"prove_family: the keyword beta_L= was renamed h=; pass h="):
        prove_family("local_gd", n=2, kappa=1, T_N=2, beta_L=(Q(0), Q(1, 2)))


# ------------------------------------------------------------------ the theorem ratio speaks lr
def test_theorem_ratio_takes_lr_and_refuses_beta() -> None:
    from fairtheory.worstcase.ratio import THEOREM_OUTPUT, theorem_coefficients, theorem_coefficients_exact, theorem_ratio

    assert THEOREM_OUTPUT == {"002": "average", "000": "path_average"}
    a, b = theorem_coefficients(version="002", kappa=2, T_N=2, lr=1 / 40, L=1.0)
    aq, bq = theorem_coefficients_exact(version="002", kappa=2, T_N=2, lr=Q(1, 40), L=Q(1))
    assert (aq, bq) == (Q(80, 3), Q(26 * 2, 1600)) and abs(a - float(aq)) <= 1e-12 * a and abs(b - float(bq)) <= 1e-12 * b
    r = _quiet(theorem_ratio, version="002", kappa=2, T_N=1, lr=1 / 40)
    assert r.params["lr"] == 1 / 40 and "beta" not in r.params and 0 < r.ratio < 1
    with pytest.raises(FairtheoryTypeError, match=r"theorem_ratio: the keyword beta= was renamed lr="):
        theorem_ratio(version="002", kappa=2, T_N=1, beta=1 / 40)


def test_rfedfair_theorem_instances_take_lr_and_refuse_beta() -> None:
    """``fairtheory.instances.rcfl``'s theorem runs take the step as ``lr`` (002's ``beta`` stays in the formulas;
    the ``lr=`` path against a direct run: tests/test_instances_rcfl.py); ``beta=`` is refused before any work."""
    import inspect

    from fairtheory.instances import rcfl as irc

    P = _logi()
    for fn, extra in ((irc.rfedfair_theorem1_gap, {}), (irc.rfedfair_theorem1_curve, {"Ts": [6]}),
                      (irc.rfedfair_theorem2_gap, {"K": 2, "seeds": [0]}),
                      (irc.rfedfair_theorem2_curve, {"K": 2, "Ts": [6], "seeds": [0]})):
        kw = {"alpha": 0.5, "mu": 0.1, "beta": 0.01, "kappa": 2, **({"T": 6} if fn.__name__.endswith("gap") else {}),
              **extra}
        assert "lr" in inspect.signature(fn).parameters and "beta" not in inspect.signature(fn).parameters
        with pytest.raises(FairtheoryTypeError, match=rf"{fn.__name__}: the keyword beta= was renamed lr="):
            fn(P, **kw)


# ------------------------------------------------------------------ the rFedFair bounds speak lr
def test_rcfl_bounds_take_lr_and_refuse_beta() -> None:
    """``fairtheory.bounds.rcfl`` takes the step size as ``lr`` (002 Thm. 1-2's ``beta``): every old keyword
    ``beta=`` is a :class:`FairtheoryTypeError` naming ``lr=``; ``theorem1_beta_max`` / ``theorem2_beta_max`` are
    ``theorem1_lr_max`` / ``theorem2_lr_max``.  The values equal the docstrings' formulas, computed here by hand:
    ``D0 = 2, lr = 1/100, T = 12, kappa = 5 (T_N = 2), L = 1, rho2 = 1/2, mu = 1/10, tau_alpha = 3/2, K = 4``."""
    import inspect
    import math

    from fairtheory.bounds import rcfl as B

    assert not hasattr(B, "theorem1_beta_max") and not hasattr(B, "theorem2_beta_max")
    for fn in (B.theorem1_step_ok, B.theorem2_step_ok, B.theorem1_terms):
        params = inspect.signature(fn).parameters
        assert "lr" in params and "beta" not in params
    kw = {"dist0_sq": 2.0, "T": 12, "kappa": 5, "L": 1.0, "rho2": 0.5, "mu": 0.1, "tau_alpha": 1.5}
    for fn, args in ((B.theorem1_step_ok, {"L": 1.0, "kappa": 5}), (B.theorem2_step_ok, {"L": 1.0, "kappa": 5, "K": 4}),
                     (B.theorem1_terms, kw), (B.theorem1_bound, kw), (B.theorem2_terms, {**kw, "K": 4}),
                     (B.theorem2_bound, {**kw, "K": 4})):
        with pytest.raises(FairtheoryTypeError, match=rf"{fn.__name__}: the keyword beta= was renamed lr=; pass lr="):
            fn(beta=0.01, **args)
    # the recorded case, from the formulas (002 Thm. 1: 2 D0/(lr (T_N+1)) + 26 L lr^2 (kappa-1)^2 kappa rho2
    # + mu tau_alpha; 002 Thm. 2 adds (12/K) lr kappa^2 rho2); Fractions, then one rounding
    lr, D0, T_N, k, L, r2, mu, tau, K = Q(1, 100), Q(2), 2, 5, Q(1), Q(1, 2), Q(1, 10), Q(3, 2), 4
    thm1 = 2 * D0 / (lr * (T_N + 1)) + 26 * L * lr**2 * (k - 1) ** 2 * k * r2 + mu * tau
    thm2 = thm1 + Q(12, K) * lr * k**2 * r2
    assert B.theorem1_bound(lr=0.01, **kw) == pytest.approx(float(thm1), rel=1e-14)
    assert B.theorem2_bound(K=4, lr=0.01, **kw) == pytest.approx(float(thm2), rel=1e-14)
    assert B.theorem1_terms(lr=0.01, **kw)["init"] == pytest.approx(float(2 * D0 / (lr * (T_N + 1))), rel=1e-14)
    # largest steps: min(1/(40 L), 1/(sqrt 6 L (kappa-1))) (Thm. 1); min(1/(20 L (3 kappa/K + 2)), ...) (Thm. 2)
    assert B.theorem1_lr_max(1.0, 20) == pytest.approx(1 / (math.sqrt(6) * 19), rel=1e-15)
    assert B.theorem1_lr_max(2.0, 3) == pytest.approx(1 / 80, rel=1e-15)
    assert B.theorem2_lr_max(1.0, 5, 5) == pytest.approx(1 / 100, rel=1e-15)
    assert B.theorem1_step_ok(1.0, lr=1 / 40, kappa=1) and not B.theorem1_step_ok(1.0, lr=1 / 39, kappa=1)
    assert B.theorem2_step_ok(1.0, lr=1 / 100, kappa=5, K=5) and not B.theorem2_step_ok(1.0, lr=1 / 99, kappa=5, K=5)


def test_traced_worst_case_old_output_mean_warns_and_is_identical() -> None:
    """The traced backend's ``"mean"`` is the hand-written PEPs' ``"average"`` (mean of the server models)."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import local_gd_worst_case, worst_case

    kw = dict(n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5, kappa=2)
    a = _quiet(worst_case, fedavg.make, 2, output="average", **kw)
    b = _old(worst_case, "mean", "average", fedavg.make, 2, output="mean", **kw)
    assert _fields(a) == _fields(b) and a.params == b.params and a.params["output"] == "average"
    hw = _quiet(local_gd_worst_case, n=2, kappa=2, T_N=1, lr=0.5, L=1.0, D0=1.0, rho2=0.5, output="average",
                schedule="fedavg")
    assert abs(a.value - hw.value) <= 1e-6 * hw.value  # the same output under the same name in both backends
    last = _quiet(worst_case, fedavg.make, 2, output="last", **kw)
    assert last.value != a.value
