"""One vocabulary for the algorithms' hyper-parameters (:mod:`fairtheory.algorithms.names`): every ``make``
takes exactly the table's names, an old name is refused with a FairtheoryTypeError naming the new one, and the
docs carry the table."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fairtheory.algorithms as algorithms_pkg
from fairtheory.algorithms import names as N
from fairtheory.algorithms.rfedfair import run_rfedfair
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems import random_logistic, random_quadratic

QUAD = random_quadratic(6, 3, rng=np.random.default_rng(0), offset=0.5)
LOGI = random_logistic(6, 3, 12, rng=np.random.default_rng(1), l2=0.05)
DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"

#: good hyper-parameters (table names) of every algorithm that has renamed names, on a small problem
GOOD: dict[str, tuple[Any, dict[str, Any]]] = {
    "afl": (QUAD, {"lr": 0.05, "dual_lr": 0.07, "K": 3, "grad_noise": 0.1, "loss_noise": 0.1}),
    "drfa": (QUAD, {"kappa": 2, "lr": 0.05, "dual_lr": 0.07, "K": 3, "grad_noise": 0.1}),
    "rfedfair": (LOGI, {"lr": 0.05, "kappa": 2, "alpha": 0.5, "mu": 0.1, "K": 3}),
    "scaffold": (QUAD, {"kappa": 2, "lr": 0.05, "server_lr": 0.8, "K": 3, "grad_noise": 0.1}),
    "scaffpd": (QUAD, {"kappa": 2, "lr": 0.05, "server_lr": 0.8, "dual_lr": 0.07, "loss_noise": 0.1}),
    "power_of_choice": (QUAD, {"lr": 0.1, "kappa": 2, "K": 2, "candidates": 4}),
}

RENAMED = [(alg, old, new) for alg in N.ALGORITHMS for old, new in N.renames_of(alg).items()]


def _modules_with_make() -> dict[str, Any]:
    """Every module of fairtheory.algorithms that defines a ``make``."""
    out = {}
    for info in pkgutil.iter_modules(algorithms_pkg.__path__):
        mod = importlib.import_module(f"fairtheory.algorithms.{info.name}")
        if callable(getattr(mod, "make", None)):
            out[info.name] = mod
    return out


def _keywords(fn: Any) -> set[str]:
    params = inspect.signature(fn).parameters.values()
    assert not any(p.kind is p.VAR_KEYWORD for p in params), f"{fn.__module__}.make takes **kwargs"
    return {p.name for p in params if p.kind is p.KEYWORD_ONLY}


def _one_step(alg_name: str, hyper: dict[str, Any]) -> tuple[Any, Any]:
    mod = importlib.import_module(f"fairtheory.algorithms.{alg_name}")
    P = GOOD[alg_name][0]
    alg = mod.make(P, **hyper)
    s = alg.step(alg.init(), np.random.default_rng(11))
    s = alg.step(s, np.random.default_rng(12))
    return alg, s


# ------------------------------------------------------------------ the table and the signatures
def test_every_algorithm_is_in_the_table_and_takes_exactly_its_names() -> None:
    mods = _modules_with_make()
    assert set(mods) == set(N.ALGORITHMS), f"modules with make {sorted(mods)} vs table {N.ALGORITHMS}"
    for name, mod in mods.items():
        sig = inspect.signature(mod.make)
        assert next(iter(sig.parameters)) == "problem", name
        assert _keywords(mod.make) == set(N.names_of(name)), (
            f"{name}.make takes {sorted(_keywords(mod.make))}, the table lists {sorted(N.names_of(name))}")


def test_cross_method_names_are_the_decided_ones() -> None:
    assert N.SHARED == ("lr", "server_lr", "dual_lr", "K", "kappa")
    for old in ("lr_w", "lr_lam", "eta_l", "eta_g"):  # renamed everywhere: no make takes them any more
        assert all(old not in N.names_of(a) for a in N.ALGORITHMS), old
    # the renames decided for the table
    assert N.renames_of("afl") == {"lr_w": "lr", "lr_lam": "dual_lr"}
    assert N.renames_of("drfa") == {"eta": "lr", "gamma": "dual_lr"}
    assert N.renames_of("rfedfair") == {"beta": "lr"}
    assert N.renames_of("scaffold") == {"eta_l": "lr", "eta_g": "server_lr"}
    assert N.renames_of("scaffpd") == {"eta_l": "lr", "eta_g": "server_lr", "sigma": "dual_lr"}
    assert N.renames_of("power_of_choice") == {"m": "K", "d": "candidates"}
    assert "beta" in N.names_of("fedfa") and "gamma" in N.names_of("fedfa")  # FedFa's own, unchanged
    assert N.names_of("qfedsgd") == ("K", "aggregator", "q", "L", "offset")


def test_every_use_has_a_symbol_and_a_source() -> None:
    seen = set()
    for h in N.TABLE:
        assert h.name not in seen, f"{h.name} listed twice"
        seen.add(h.name)
        assert h.meaning and h.uses, h.name
        for alg, use in h.uses.items():
            assert use.symbol and use.source, (h.name, alg)
            assert h.name not in use.old, (h.name, alg)


def test_recorded_hyper_and_step_sizes_use_the_new_names() -> None:
    for alg_name, (P, hyper) in GOOD.items():
        mod = importlib.import_module(f"fairtheory.algorithms.{alg_name}")
        alg = mod.make(P, **hyper)
        assert set(alg.hyper) <= set(N.names_of(alg_name)), (alg_name, sorted(alg.hyper))
        assert set(alg.step_sizes) <= set(alg.hyper), (alg_name, alg.step_sizes)
        assert not set(alg.hyper) & set(N.renames_of(alg_name)), alg_name
        for k, v in hyper.items():
            if isinstance(v, float):
                assert np.all(np.asarray(alg.hyper[k]) == v), (alg_name, k)


def test_unknown_algorithm_is_a_named_error() -> None:
    with pytest.raises(FairtheoryValueError, match="algorithm must be one of .*'nope'"):
        N.names_of("nope")


# ------------------------------------------------------------------ removed old names: a named error
@pytest.mark.parametrize("alg_name, old, new", RENAMED, ids=[f"{a}-{o}" for a, o, _ in RENAMED])
def test_old_name_is_refused_naming_the_new_one(alg_name: str, old: str, new: str) -> None:
    hyper = GOOD[alg_name][1]
    legacy = {(old if k == new else k): v for k, v in hyper.items()}
    assert old in legacy and new not in legacy
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # refused, not translated with a warning
        with pytest.raises(FairtheoryTypeError, match=rf"{alg_name}\.make: the hyper-parameter {old}= was renamed {new}=; "
                                                      rf"pass {new}="):
            _one_step(alg_name, legacy)


@pytest.mark.parametrize("alg_name, old, new", RENAMED, ids=[f"{a}-{o}" for a, o, _ in RENAMED])
def test_old_and_new_name_together_is_an_error(alg_name: str, old: str, new: str) -> None:
    P, hyper = GOOD[alg_name]
    mod = importlib.import_module(f"fairtheory.algorithms.{alg_name}")
    with pytest.raises(FairtheoryTypeError, match=rf"{alg_name}\.make: the hyper-parameter {old}= was renamed {new}="):
        mod.make(P, **hyper, **{old: hyper[new]})


def test_several_old_names_name_the_first_in_table_order() -> None:
    hyper = dict(GOOD["scaffpd"][1])
    legacy = {"eta_l": hyper.pop("lr"), "eta_g": hyper.pop("server_lr"), "sigma": hyper.pop("dual_lr"), **hyper}
    with pytest.raises(FairtheoryTypeError, match=r"scaffpd\.make: the hyper-parameter eta_l= was renamed lr="):
        _one_step("scaffpd", legacy)
    assert isinstance(FairtheoryTypeError("x"), TypeError)  # still a TypeError for callers that catch that


def test_run_rfedfair_refuses_beta_and_output_version() -> None:
    kw = dict(T=6, kappa=2, alpha=0.5, mu=0.1)
    with pytest.raises(FairtheoryTypeError, match=r"rfedfair\.run_rfedfair: the hyper-parameter beta= was renamed lr="):
        run_rfedfair(LOGI, beta=0.05, **kw)
    with pytest.raises(FairtheoryTypeError, match=r"run_rfedfair: the keyword output_version= was renamed output="):
        run_rfedfair(LOGI, lr=0.05, output_version="000", **kw)


def test_refusal_keeps_the_signature_and_plain_type_errors() -> None:
    from fairtheory.algorithms import rfedfair, scaffold

    assert "beta" not in inspect.signature(rfedfair.make).parameters
    assert {"lr", "server_lr"} <= set(inspect.signature(scaffold.make).parameters)
    assert "output_version" not in inspect.signature(run_rfedfair).parameters


def test_new_names_raise_no_deprecation_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for alg_name in GOOD:
            _one_step(alg_name, GOOD[alg_name][1])


def test_misspelt_name_is_still_a_type_error() -> None:
    from fairtheory.algorithms import afl

    with pytest.raises(TypeError, match="lr_ww"):
        afl.make(QUAD, lr_ww=0.1, dual_lr=0.1)


# ------------------------------------------------------------------ the docs carry the table
def test_docs_architecture_carries_the_generated_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"<!-- hyper-names:start -->\n(.*?)<!-- hyper-names:end -->", text, re.S)
    assert m is not None, "docs/architecture.md lacks the hyper-names markers"
    assert m.group(1) == N.markdown_table(), (
        "docs/architecture.md's hyper-parameter table is stale: replace the block between the markers with "
        "fairtheory.algorithms.names.markdown_table()")
    for h in N.TABLE:
        assert f"| `{h.name}`" in m.group(1), h.name


# ------------------------------------------------------------------ the worst-case API speaks the same vocabulary
def _lgd() -> Any:
    from fairtheory.worstcase import local_gd_worst_case

    return local_gd_worst_case


def _scaf() -> Any:
    from fairtheory.worstcase import scaffold_worst_case

    return scaffold_worst_case


#: (function, where its messages name it, good keywords with the new names, old name, new name); tiny PEPs, and a step
#: that is not 1/L so a swapped step would show (server_lr = 0.75 != its default 1)
WORST: list[tuple[Any, str, dict[str, Any], str, str]] = [
    (_lgd, r"local_gd\.local_gd_worst_case", dict(n=2, kappa=1, T_N=1, lr=0.375, L=2.0, D0=1.0, rho2=0.5), "beta", "lr"),
    (_scaf, r"scaffold\.scaffold_worst_case", dict(n=2, kappa=1, R=1, lr=0.375, server_lr=0.75, L=1.0, D0=1.0, rho2=0.5),
     "eta_l", "lr"),
    (_scaf, r"scaffold\.scaffold_worst_case", dict(n=2, kappa=1, R=1, lr=0.375, server_lr=0.75, L=1.0, D0=1.0, rho2=0.5),
     "eta_g", "server_lr"),
]


def _fields(wc: Any) -> tuple[Any, ...]:
    return (wc.value, wc.upper, wc.lower, wc.dual_value, wc.gap, wc.dim, wc.n_constraints, wc.status, wc.value_is)


@pytest.mark.parametrize("get, where, good, old, new", WORST, ids=[f"{w[3]}" for w in WORST])
def test_worst_case_functions_take_the_new_names_and_refuse_the_old(get: Any, where: str, good: dict[str, Any],
                                                                    old: str, new: str) -> None:
    fn = get()
    params = inspect.signature(fn).parameters
    assert new in params and old not in params  # the signature shows only the algorithms' names
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        a = fn(**good)
        b = fn(**good)
    assert _fields(a) == _fields(b) and a.params == b.params  # deterministic: the comparisons below are exact
    assert a.value > 0 and a.certified() and a.params[new] == good[new]
    assert old not in a.params  # WorstCase.params speaks the new names
    legacy = {(old if k == new else k): v for k, v in good.items()}
    with pytest.raises(FairtheoryTypeError, match=rf"{where}: the hyper-parameter {old}= was renamed {new}=; pass {new}="):
        fn(**legacy)  # the removed name: a named error, nothing solved
    with pytest.raises(FairtheoryTypeError, match=rf"{where}: the hyper-parameter {old}= was renamed {new}="):
        fn(**good, **{old: good[new]})


def test_worst_case_steps_are_used_not_just_renamed() -> None:
    """The renamed keywords reach the PEP: another step gives another value."""
    kw = dict(n=2, kappa=1, T_N=1, L=2.0, D0=1.0, rho2=0.5)
    assert _lgd()(lr=0.375, **kw).value != _lgd()(lr=0.125, **kw).value
    kw = dict(n=2, kappa=1, R=1, lr=0.375, L=1.0, D0=1.0, rho2=0.5)
    assert _scaf()(server_lr=0.75, **kw).value != _scaf()(server_lr=1.0, **kw).value
    assert _scaf()(server_lr=1.0, **kw).value == _scaf()(**kw).value  # server_lr defaults to 1


def test_worst_case_vs_rounds_passes_lr_and_refuses_beta() -> None:
    from fairtheory.worstcase import worst_case_vs_rounds

    kw = dict(T_N_values=(0, 1), n=1, kappa=1, L=1.0, D0=1.0, rho2=0.0, output="last", schedule="fedavg")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = worst_case_vs_rounds(lr=1.0, **kw)
    with pytest.raises(FairtheoryTypeError, match=r"local_gd_worst_case: the hyper-parameter beta= was renamed lr="):
        worst_case_vs_rounds(beta=1.0, **kw)
    assert new["status_ok"].all()
    # GD with step 1/L on one client: L D0/(4N+2) at N = T_N + 1 steps (Drori & Teboulle 2014)
    assert np.allclose(new["value"], [1 / 6, 1 / 10], rtol=1e-6)


def test_traced_worst_case_class_mu_is_the_class_and_mu_the_method() -> None:
    """``worst_case``: the class's strong convexity is ``class_mu=``; ``mu=`` is always the method's, and for a method
    without one it is refused naming ``class_mu=`` (the removed spelling of the class's mu)."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import SmoothStronglyConvex, worst_case

    kw = dict(n=1, L=1.0, D0=1.0, rho2=0.0, lr=0.5, measure="distance")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = worst_case(fedavg.make, 2, class_mu=0.1, **kw)
    assert abs(new.value - 0.95 ** 4) <= 1e-6  # GD's contraction max(|1 - h mu|, |1 - h L|)^(2N), h = 1/2, N = 2
    with pytest.raises(FairtheoryTypeError, match=r"worst_case: mu= is a hyper-parameter of the method.*class_mu="):
        worst_case(fedavg.make, 2, mu=0.1, **kw)
    with pytest.raises(FairtheoryTypeError, match=r"worst_case: mu= .*class_mu="):
        worst_case(fedavg.make, 2, function_class=SmoothStronglyConvex(1.0, 0.0), mu=0.1,
                   **{k: v for k, v in kw.items() if k != "L"})
    with pytest.raises(FairtheoryValueError, match="give the function class once"):
        worst_case(fedavg.make, 2, class_mu=0.1, function_class=SmoothStronglyConvex(1.0, 0.1), **kw)
