"""The aggregator interface: values and weights against the objective formulas, finite differences,
torch, separable forms, validation, and the certified exact solve of any aggregator."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory import aggregators as A
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.objectives.qalpha import F_mu, qalpha_loss
from fairtheory.objectives.qffl import qffl_value
from fairtheory.objectives.tilted import term

RNG = np.random.default_rng(0)
P = RNG.dirichlet(np.ones(6))
F = RNG.uniform(0.0, 3.0, 6)


def all_aggregators(p=P):
    return [A.fedavg(p), A.afl(p.size), A.cvar(p.size, 0.3), A.qalpha(p, 0.5), A.SmoothedQalpha(p, 0.5, 0.1),
            A.SmoothedQalpha(p, 1.0, 0.1), A.QFFL(p, 2.0), A.QFFL(p, 0.0), A.TERM(p, 1.5)]


@pytest.mark.parametrize("agg", all_aggregators(), ids=lambda a: a.name)
def test_weights_are_the_gradient(agg):
    """Central differences of value match weights (at a point without ties, where every one is smooth)."""
    fd = np.array([(agg.value(F + 1e-6 * e) - agg.value(F - 1e-6 * e)) / 2e-6 for e in np.eye(F.size)])
    assert np.max(np.abs(fd - agg.weights(F))) <= 1e-7


def test_values_match_the_objective_formulas():
    assert A.fedavg(P).value(F) == pytest.approx(float(P @ F), rel=1e-15)
    assert A.afl(6).value(F) == F.max()
    assert A.qalpha(P, 0.5).value(F) == pytest.approx(qalpha_loss(F, P, 0.5)[0], rel=1e-15)
    sm = A.SmoothedQalpha(P, 0.5, 0.1)
    eta = sm.eta_star(F)
    assert sm.value(F) == pytest.approx(F_mu(F, eta, P, 0.5, 0.1), rel=1e-15)
    # eta* minimises F_mu: moving it either way does not lower the value
    assert min(F_mu(F, eta + d, P, 0.5, 0.1) for d in (-1e-4, 1e-4)) >= sm.value(F)
    assert A.QFFL(P, 2.0).value(F) == pytest.approx(float(qffl_value(F, 2.0, P)), rel=1e-14)
    assert A.TERM(P, 1.5).value(F) == pytest.approx(term(F, P, 1.5), rel=1e-14)
    # alpha = 1: the smoothed objective is exactly the FedAvg objective (eta* = -inf)
    assert A.SmoothedQalpha(P, 1.0, 0.1).value(F) == pytest.approx(float(P @ F), rel=1e-15)


@pytest.mark.parametrize("agg", [a for a in all_aggregators() if A.is_separable(a)], ids=lambda a: a.name)
def test_separable_form(agg):
    """value = min_eta sum p_i h_i(f_i, eta); client_grads are the partial derivatives of client_values."""
    from scipy.optimize import minimize_scalar

    def J(eta):
        return float(P @ agg.client_values(F, np.full(6, eta)))

    res = minimize_scalar(J, bounds=(F.min() - 5, F.max() + 5), method="bounded", options={"xatol": 1e-12})
    assert res.fun == pytest.approx(agg.value(F), rel=1e-9, abs=1e-12)
    assert all(J(e) >= agg.value(F) - 1e-12 for e in np.linspace(F.min() - 1, F.max() + 1, 21))
    E = np.full(6, 0.7)
    df, deta = agg.client_grads(F, E)
    h = 1e-6
    assert np.max(np.abs(df - (agg.client_values(F + h, E) - agg.client_values(F - h, E)) / (2 * h))) <= 1e-6
    assert np.max(np.abs(deta - (agg.client_values(F, E + h) - agg.client_values(F, E - h)) / (2 * h))) <= 1e-6


def test_qffl_curvature_is_the_second_derivative():
    agg = A.QFFL(P, 2.5, offset=1e-10)
    h = 1e-5
    fd = np.array([(agg.weights(F + h * e)[i] - agg.weights(F - h * e)[i]) / (2 * h) for i, e in enumerate(np.eye(6))])
    assert np.max(np.abs(fd - agg.curvature(F))) <= 1e-6
    assert np.all(A.QFFL(P, 0.5).curvature(np.zeros(6)) == 0.0)  # the limit of Lemma 12's term at f = 0


def test_torch_inputs_keep_their_library():
    torch = pytest.importorskip("torch")
    ft = torch.tensor(F, dtype=torch.float64)
    for agg in all_aggregators():
        w = agg.weights(ft)
        assert isinstance(w, torch.Tensor) and w.dtype == torch.float64
        assert np.max(np.abs(w.numpy() - agg.weights(F))) <= 1e-14
        assert agg.value(ft) == pytest.approx(agg.value(F), rel=1e-14)
    assert A.qalpha(P, 0.5).weights(torch.tensor([1, 2, 3, 4, 5, 6])).dtype == torch.float64


@pytest.mark.parametrize("bad, err", [(np.ones(5), FairtheoryValueError), (np.array([1.0, np.nan, 1, 1, 1, 1]),
                                                                         FairtheoryValueError),
                                      ("abc", FairtheoryTypeError), (np.ones(6, dtype=bool), FairtheoryTypeError)])
def test_bad_loss_vectors_are_named_errors(bad, err):
    with pytest.raises(err, match="f"):
        A.qalpha(P, 0.5).value(bad)


def test_domain_and_constructor_validation():
    with pytest.raises(FairtheoryValueError, match="domain"):
        A.QFFL(P, 1.0).value(-F)
    with pytest.raises(FairtheoryValueError, match="alpha"):
        A.SmoothedQalpha(P, 0.01, 0.1)
    with pytest.raises(FairtheoryValueError, match="mu"):
        A.SmoothedQalpha(P, 0.5, 0.0)
    with pytest.raises(FairtheoryValueError, match="q"):
        A.QFFL(P, -1.0)
    with pytest.raises(FairtheoryTypeError, match="aggregator"):
        A.as_aggregator(lambda f: 0.0, 6)
    with pytest.raises(FairtheoryValueError, match="n = 6"):
        A.as_aggregator(A.afl(5), 6)


def test_set_support_constant_weights_and_projection():
    assert A.fedavg(P).constant_weights and not A.qalpha(P, 0.5).constant_weights
    lam = A.cvar(6, 0.5).project(np.arange(6.0))
    assert lam.sum() == pytest.approx(1.0) and np.all(lam <= 1 / 3 + 1e-15)
    with pytest.raises(FairtheoryTypeError, match="CappedSimplex"):
        A.integrated(A.cvar(6, 0.5).set, A.afl(6).set, 0.3).project(F)


@pytest.mark.parametrize("which", ["quadratic", "logistic"])
def test_solve_aggregator_matches_the_dedicated_solvers(which):
    from fairtheory.exact.aggregate import solve_aggregator
    from fairtheory.exact.qffl import solve_qffl
    from fairtheory.exact.rcfl import solve_afl, solve_fedavg, solve_rcfl
    from fairtheory.problems import random_logistic, random_quadratic

    rng = np.random.default_rng(1)
    Pb = random_quadratic(6, 3, rng=rng) if which == "quadratic" else random_logistic(6, 3, 20, rng=rng)
    pairs = [(A.qalpha(Pb.p, 0.5), solve_rcfl(Pb, 0.5).value), (A.fedavg(Pb.p), solve_fedavg(Pb).value),
             (A.afl(Pb.n), solve_afl(Pb).value), (A.QFFL(Pb.p, 2.0), solve_qffl(Pb, 2.0).value)]
    for agg, ref in pairs:
        res = solve_aggregator(Pb, agg)
        assert abs(res.value - ref) <= 1e-7 * max(1.0, abs(ref)), agg.name
        assert 0.0 <= res.certificate["gap"] + 1e-12 <= 1e-6 * max(1.0, abs(res.value)) + 1e-12
    # no dedicated solver: TERM and the smoothed objective are certified by their own duality gap
    for agg in (A.TERM(Pb.p, 3.0), A.SmoothedQalpha(Pb.p, 0.5, 0.1)):
        res = solve_aggregator(Pb, agg)
        g = res.weights @ Pb.grads(res.argmin)
        assert np.linalg.norm(g) <= 1e-7 and res.certificate["gap"] <= 1e-6


def test_solve_aggregator_needs_a_cvxpy_form():
    from fairtheory.exact.aggregate import solve_aggregator
    from fairtheory.problems import random_quadratic

    Pb = random_quadratic(3, 2, rng=np.random.default_rng(0))

    class NoCvx(A.BaseAggregator):
        n = 3

        def _value(self, f):
            return float(f.sum())

        def _weights(self, f):
            return np.ones(3)

    with pytest.raises(FairtheoryTypeError, match="cvxpy"):
        solve_aggregator(Pb, NoCvx())
    res = solve_aggregator(Pb, NoCvx(), expr=lambda t: t[0] + t[1] + t[2])
    assert res.certificate["gap"] <= 1e-9
