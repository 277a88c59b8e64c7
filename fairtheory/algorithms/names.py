r"""One vocabulary for the hyper-parameters of every algorithm's ``make(problem, **hyper)``.

The table :data:`TABLE` is the single source of truth: for every hyper-parameter name, what it
means, and for every algorithm that takes it, the paper's symbol, where the paper defines it (a seed
label such as ``002 Algorithm 1`` or an author-year reference) and the names it replaced.  The
cross-method names are

============  ==========================================================================
``lr``        client (primal) step size: ``w <- w - lr g`` on a client
``server_lr`` server step size on the aggregated update
``dual_lr``   dual / client-weight step size: ``lam <- Proj(lam + dual_lr v)``
``K``         clients sampled per round (``None``: full participation)
``kappa``     local steps per round (002's ``kappa``)
============  ==========================================================================

and every other name is method-specific (it keeps the paper's name, e.g. 003's ``q`` and ``L``,
004's ``alpha`` and ``tau``).  ``docs/architecture.md`` carries :func:`markdown_table` verbatim
(a test checks it).

Renamed hyper-parameter names are refused by name: :func:`refuses_old_names` wraps a ``make`` (or a
worst-case function taking its keywords) so that an old name raises a
:class:`~fairtheory.errors.FairtheoryTypeError` naming the new one (instead of Python's bare "unexpected
keyword"); the wrapped function keeps its signature (:func:`inspect.signature` shows only the table's names).

Renamed *values* of a string argument (the output names, :data:`OUTPUT_RENAMES`: the paper labels ``"002"`` /
``"000"`` and Scaffold's ``"avg"`` became ``"average"`` / ``"path_average"``) stay accepted for one release:
:func:`deprecated_value` translates an old value with a :class:`DeprecationWarning` naming the new one.  The
outputs of local gradient descent with periodic averaging (server models ``w_r`` after each averaging, ``w_0 =
x_0``; the averaged iterates ``sum_i p_i theta_t^i`` of every step):

==================  ========================================================================
``"average"``       mean of the server models after each averaging (002 Alg. 1's output)
``"path_average"``  mean of every averaged iterate from ``x_0`` on (000 Alg. 1's output)
``"last"``          the last server model
==================  ========================================================================
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["Use", "HyperName", "TABLE", "ALGORITHMS", "SHARED", "OUTPUT_RENAMES", "THEOREM_OUTPUT", "names_of", "renames_of",
           "refuses_old_names", "deprecated_value", "output_name", "markdown_table"]

P = ParamSpec("P")
#: the package's directory: frames inside it are not "the caller" of a deprecation warning
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
R = TypeVar("R")


@dataclass(frozen=True)
class Use:
    """One algorithm's use of a hyper-parameter name.

    Attributes
    ----------
    symbol : the paper's symbol (ASCII, e.g. ``"gamma_w"``); ``"-"`` where the paper has none.
    source : where the symbol is defined (a seed label, ``"002 Algorithm 1"``, or an author-year reference).
    old : the names this one replaced (passing one is a :class:`~fairtheory.errors.FairtheoryTypeError` naming the
        new name, :func:`refuses_old_names`).
    meaning : what the name means for this algorithm, where the row's general meaning is not enough.
    """

    symbol: str
    source: str
    old: tuple[str, ...] = ()
    meaning: str = ""


@dataclass(frozen=True)
class HyperName:
    """A row of the table: a name, its meaning, whether it is cross-method, and its uses by algorithm."""

    name: str
    meaning: str
    uses: Mapping[str, Use] = field(default_factory=dict)
    shared: bool = False


# author-year references of the algorithms that are not seeds
_AFL = "Mohri et al. 2019, Stochastic-AFL"
_DITTO = "Li et al. 2021, Ditto Alg. 1"
_DRFA = "Deng et al. 2020, DRFA Alg. 1"
_FEDAVG = "McMahan et al. 2017"
_FEDFA = "Huang et al. 2020, FedFa"
_MGDA = "Hu et al. 2022, FedMGDA+ Alg. 1"
_POC = "Cho et al. 2022, pow-d Alg. 1"
_PROX = "Li et al. 2020, FedProx"
_SCAF = "Karimireddy et al. 2020, Scaffold"
_IMPL = "this implementation"

TABLE: tuple[HyperName, ...] = (
    # ------------------------------------------------------------------ cross-method names
    HyperName("lr", "client (primal) step size of the local gradient steps, w <- w - lr g", shared=True, uses={
        "afl": Use("gamma_w", _AFL, ("lr_w",)),
        "ditto": Use("eta", _DITTO, meaning="step of the global solver's local steps"),
        "drfa": Use("eta", _DRFA, ("eta",)),
        "fedavg": Use("eta", _FEDAVG, meaning="a float, or a schedule lr(r) of the round r"),
        "fedfa": Use("-", _FEDFA),
        "fedfv": Use("-", "004 Alg. 1 (local training)"),
        "fedmgda": Use("-", _MGDA, meaning="a float, or a schedule lr(r) of the round r"),
        "fedprox": Use("-", _PROX),
        "power_of_choice": Use("eta", _POC),
        "qfedavg": Use("eta", "003 Alg. 1"),
        "rfedfair": Use("beta", "002 Algorithm 1", ("beta",)),
        "scaffold": Use("eta_l", _SCAF, ("eta_l",)),
        "scaffpd": Use("eta_l", "001 Alg. 2", ("eta_l",)),
    }),
    HyperName("server_lr", "server step size on the aggregated update", shared=True, uses={
        "fedfa": Use("-", _IMPL, meaning="step on the server momentum"),
        "fedmgda": Use("eta", _MGDA, meaning="step along the normalised common direction"),
        "scaffold": Use("eta_g", _SCAF, ("eta_g",)),
        "scaffpd": Use("eta_g", "001 Alg. 2", ("eta_g",)),
    }),
    HyperName("dual_lr", "dual (client-weight) step size, lam <- Proj(lam + dual_lr v)", shared=True, uses={
        "afl": Use("gamma_lambda", _AFL, ("lr_lam",)),
        "drfa": Use("gamma", _DRFA, ("gamma",), meaning="the ascent step is kappa dual_lr"),
        "scaffpd": Use("sigma_0", "001 Alg. 1", ("sigma",), meaning="initial dual step (constant when mu_accel = 0)"),
    }),
    HyperName("K", "clients sampled per round (None: full participation)", shared=True, uses={
        "afl": Use("-", _AFL, meaning="uniform draws with replacement per estimate"),
        "ditto": Use("-", _DITTO, meaning="i.i.d. draws by p"),
        "drfa": Use("m", _DRFA, meaning="draws by lam (local steps) and uniform (loss estimate); required"),
        "fedavg": Use("-", _FEDAVG, meaning="i.i.d. draws by p"),
        "fedfa": Use("m", _FEDFA, meaning="i.i.d. draws by p, each distinct client once"),
        "fedfv": Use("m", "004 Alg. 1", meaning="distinct clients drawn by p"),
        "fedmgda": Use("-", _MGDA, meaning="i.i.d. draws by p"),
        "fedprox": Use("K", _PROX),
        "power_of_choice": Use("m", _POC, ("m",), meaning="selected clients (highest losses among the candidates)"),
        "qfedavg": Use("-", "003 Alg. 1", meaning="i.i.d. draws by p"),
        "qfedsgd": Use("-", "003 Alg. 3", meaning="i.i.d. draws by p"),
        "rfedfair": Use("K", "002 Sec. 4", meaning="i.i.d. draws by p per communication"),
        "scaffold": Use("S", _SCAF, meaning="i.i.d. draws by p"),
    }),
    HyperName("kappa", "local steps per round (002's kappa)", shared=True, uses={
        "ditto": Use("-", _DITTO, meaning="local steps of the global solver"),
        "drfa": Use("tau", _DRFA),
        "fedavg": Use("kappa", "002 Algorithm 1"),
        "fedfa": Use("-", _FEDFA),
        "fedfv": Use("E", "004 Alg. 1", meaning="local full-batch steps (004's local epochs)"),
        "fedmgda": Use("-", _MGDA),
        "fedprox": Use("-", _PROX),
        "power_of_choice": Use("tau", _POC),
        "qfedavg": Use("E", "003 Alg. 1", meaning="local full-batch steps (003's local epochs)"),
        "rfedfair": Use("kappa", "002 Algorithm 1", meaning="the server averages at the steps t that kappa divides"),
        "scaffold": Use("K", _SCAF),
        "scaffpd": Use("J", "001 Alg. 2"),
    }),
    # ------------------------------------------------------------------ method-specific names
    HyperName("aggregator", "the objective: an aggregator of the client-loss vector (or a client-weight set)", uses={
        "afl": Use("Lambda", _AFL, meaning="set-support aggregator over a capped simplex (default the simplex)"),
        "drfa": Use("Lambda", _DRFA, meaning="set-support aggregator over a capped simplex (default the simplex)"),
        "fedavg": Use("-", _FEDAVG, meaning="where the server weights come from (default fedavg(p))"),
        "fedprox": Use("-", _PROX, meaning="where the server weights come from (default fedavg(p))"),
        "qfedavg": Use("-", "003 eq. 2", meaning="default QFFL(p, q, offset); give q or aggregator"),
        "qfedsgd": Use("-", "003 eq. 2", meaning="default QFFL(p, q, offset); give q or aggregator"),
        "rfedfair": Use("-", "002 eq. 5", meaning="separable aggregator; default SmoothedQalpha(p, alpha, mu)"),
        "scaffpd": Use("Lambda_phi(A, B)", "001 eqs. 6-8", meaning="integrated or capped-simplex set (default the simplex)"),
    }),
    HyperName("candidates", "candidate-set size of power-of-choice selection", uses={
        "power_of_choice": Use("d", _POC, ("d",), meaning="clients drawn without replacement, K <= candidates <= n"),
    }),
    HyperName("q", "q-FFL exponent", uses={
        "qfedavg": Use("q", "003 eq. 2"),
        "qfedsgd": Use("q", "003 eq. 2"),
    }),
    HyperName("L", "Lipschitz estimate of the client gradients; the server step is 1/L at q = 0", uses={
        "qfedavg": Use("L", "003 Sec. 3.3", meaning="default 1/lr"),
        "qfedsgd": Use("L", "003 Sec. 3.3"),
    }),
    HyperName("offset", "method-specific offset", uses={
        "qfedavg": Use("-", _IMPL, meaning="o >= 0 added to F_k before the powers (fair_flearn's 1e-10)"),
        "qfedsgd": Use("-", _IMPL, meaning="o >= 0 added to F_k before the powers (fair_flearn's 1e-10)"),
        "fedmgda": Use("-", _IMPL, meaning=">= 0 added to each update norm before dividing"),
    }),
    HyperName("scaled", "q-FedAvg's update convention: Delta w_k = L (w - wbar_k) (True) or w - wbar_k", uses={
        "qfedavg": Use("-", "003 Alg. 1"),
    }),
    HyperName("alpha", "method-specific level", uses={
        "rfedfair": Use("alpha", "002 eq. 5", meaning="Q_alpha level(s) in [p_i, 1] of the default aggregator"),
        "fedfv": Use("alpha", "004 Sec. 3.2", meaning="fraction of largest-loss clients whose updates are not projected"),
    }),
    HyperName("mu", "smoothing of the smoothed Q_alpha loss", uses={
        "rfedfair": Use("mu", "002 eq. 5"),
    }),
    HyperName("prox_mu", "FedProx's proximal weight, local objective f_k(v) + prox_mu/2 ||v - w||^2", uses={
        "fedprox": Use("mu", _PROX),
    }),
    HyperName("lam", "Ditto's personalisation strength, h_k(v; w) = F_k(v) + lam/2 ||v - w||^2", uses={
        "ditto": Use("lambda", "Li et al. 2021, Ditto eq. 2"),
    }),
    HyperName("s", "Ditto's personal steps per round (default kappa)", uses={
        "ditto": Use("s", _DITTO),
    }),
    HyperName("lr_personal", "Ditto's personal step size (default lr)", uses={
        "ditto": Use("eta", _DITTO),
    }),
    HyperName("tau", "FedFV's external-conflict window in rounds (0 disables it)", uses={
        "fedfv": Use("tau", "004 Alg. 3"),
    }),
    HyperName("order", "FedFV's projection order", uses={
        "fedfv": Use("-", "004 Alg. 1, Table 4"),
    }),
    HyperName("keep_rule", "FedFV's rule for the unprojected clients: 'paper' or 'reference' (flgo)", uses={
        "fedfv": Use("-", "004 Alg. 2"),
    }),
    HyperName("window", "FedFV's history window rule: 'paper' or 'reference' (flgo)", uses={
        "fedfv": Use("-", "004 Alg. 3"),
    }),
    HyperName("epsilon", "FedMGDA+'s half-width of the weight box around the sample weights", uses={
        "fedmgda": Use("epsilon", _MGDA),
    }),
    HyperName("beta", "FedFa's frequency weight in [0, 1] (the accuracy weight is 1 - beta)", uses={
        "fedfa": Use("beta", _FEDFA),
    }),
    HyperName("gamma", "FedFa's server momentum in [0, 1)", uses={
        "fedfa": Use("-", _IMPL, meaning="the paper's momentum is client-side"),
    }),
    HyperName("eps_acc", "FedFa's guard inside the accuracy logarithm (paper: 0; FLGo: 1e-6)", uses={
        "fedfa": Use("-", _IMPL),
    }),
    HyperName("eps_freq", "FedFa's guard inside the frequency logarithm (paper: 0; FLGo: 1e-5)", uses={
        "fedfa": Use("-", _IMPL),
    }),
    HyperName("accuracy", "FedFa's training accuracies w -> (n,) in [0, 1] (default problem.accuracies)", uses={
        "fedfa": Use("ACC_i", _FEDFA),
    }),
    HyperName("inexactness", "FedProx's local-solver inexactness in [0, 1] (solver='inexact' only)", uses={
        "fedprox": Use("gamma", "Li et al. 2020, FedProx Def. 1"),
    }),
    HyperName("solver", "FedProx's local solver: 'gd', 'exact' or 'inexact'", uses={
        "fedprox": Use("-", _IMPL),
    }),
    HyperName("theta", "Scaff-PD's extrapolation weight (when mu_accel = 0)", uses={
        "scaffpd": Use("theta", "001 Alg. 1"),
    }),
    HyperName("mu_accel", "Scaff-PD's strong-convexity modulus of the acceleration schedule (0: constant steps)", uses={
        "scaffpd": Use("mu", "001 Lemma 8"),
    }),
    HyperName("grad_noise", "standard deviation of additive Gaussian noise on client gradients", uses={
        "afl": Use("-", _IMPL), "drfa": Use("-", _IMPL), "scaffold": Use("-", _IMPL), "scaffpd": Use("-", _IMPL),
    }),
    HyperName("loss_noise", "standard deviation of additive Gaussian noise on client losses", uses={
        "afl": Use("-", _IMPL), "drfa": Use("-", _IMPL), "scaffpd": Use("-", _IMPL),
    }),
)

#: the cross-method names (the first rows of :data:`TABLE`)
SHARED: tuple[str, ...] = tuple(h.name for h in TABLE if h.shared)

#: every algorithm the table covers, sorted
ALGORITHMS: tuple[str, ...] = tuple(sorted({a for h in TABLE for a in h.uses}))


def _check_algorithm(algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise FairtheoryValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    return algorithm


def names_of(algorithm: str) -> tuple[str, ...]:
    """The hyper-parameter names ``algorithm``'s ``make`` takes, in table order."""
    _check_algorithm(algorithm)
    return tuple(h.name for h in TABLE if algorithm in h.uses)


def renames_of(algorithm: str) -> dict[str, str]:
    """``{old name: new name}`` of ``algorithm`` (the removed names, refused by :func:`refuses_old_names`)."""
    _check_algorithm(algorithm)
    return {old: h.name for h in TABLE if algorithm in h.uses for old in h.uses[algorithm].old if old != h.name}


def _refuse(table: Mapping[str, str], given: Mapping[str, Any], where: str, kind: str) -> None:
    """Raise a :class:`~fairtheory.errors.FairtheoryTypeError` for the first old name in ``given``."""
    for old, new in table.items():
        if old in given:
            raise FairtheoryTypeError(f"{where}: the {kind} {old}= was renamed {new}=; pass {new}= "
                                      "(fairtheory.algorithms.names; the old name was removed)")


def refuses_old_names(algorithm: str | None, also: Mapping[str, str] | None = None
                      ) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: the wrapped function (a ``make``, or a function taking its keywords) raises a
    :class:`~fairtheory.errors.FairtheoryTypeError` naming the new name when given one of ``algorithm``'s old
    hyper-parameter names (:func:`renames_of`; ``None``: none) or of the function's own renamed keywords ``also``
    (``{old: new}``); its signature is unchanged, and a misspelt name stays Python's ``TypeError``."""
    hyper = renames_of(algorithm) if algorithm is not None else {}
    own = dict(also or {})
    old = frozenset(hyper) | frozenset(own)

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        if not old:  # nothing renamed: the function itself
            return fn
        where = f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}"

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            if not old.isdisjoint(kwargs):
                _refuse(hyper, kwargs, where, "hyper-parameter")
                _refuse(own, kwargs, where, "keyword")
            return fn(*args, **kwargs)

        return wrapper

    return wrap


#: renamed output names ``{old: new}``: the paper labels of local GD's outputs and Scaffold's ``"avg"``; accepted for
#: one release with a :class:`DeprecationWarning` (:func:`output_name`)
OUTPUT_RENAMES: Mapping[str, str] = {"002": "average", "000": "path_average", "avg": "average"}


#: the output each rFedFair theorem bounds, by the theorem's paper label: 002 Thm. 1-2 the mean of the server models,
#: 000 Thm. 1-2 the mean of every averaged iterate (the paper labels name theorems, the output names name outputs)
THEOREM_OUTPUT: Mapping[str, str] = {"002": "average", "000": "path_average"}


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` (called by this function's caller) that names the first frame
    outside the fairtheory package: the user's call, however many of the package's functions and wrappers lie
    between."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level += 1
        frame = frame.f_back  # type: ignore[assignment]
    return level - 1


def deprecated_value(value: Any, renames: Mapping[str, str], *, arg: str, where: str) -> Any:
    """``value``, or its new name where it is an old one of ``renames`` (``{old: new}``), with a
    :class:`DeprecationWarning` naming the new value, attributed to the first caller outside the package.  ``arg``
    and ``where`` name the argument and the function in the message."""
    if not isinstance(value, str) or value not in renames:
        return value
    new = renames[value]
    warnings.warn(f"{where}: {arg}={value!r} is deprecated, use {arg}={new!r} (the old name is accepted for one "
                  "release; fairtheory.algorithms.names)", DeprecationWarning, stacklevel=_caller_stacklevel())
    return new


def output_name(output: Any, *, where: str, arg: str = "output") -> Any:
    """:func:`deprecated_value` of an output name (the argument ``arg``) with :data:`OUTPUT_RENAMES`."""
    return deprecated_value(output, OUTPUT_RENAMES, arg=arg, where=where)


def markdown_table() -> str:
    """The table as markdown (what ``docs/architecture.md`` carries between its ``hyper-names`` markers):
    one row per name, with its meaning and, per algorithm, the paper's symbol, source and old names."""
    def esc(text: str) -> str:  # a "|" inside a cell would end it
        return text.replace("|", "\\|")

    lines = ["| name | meaning | per algorithm: paper symbol (source) [old name] |", "|---|---|---|"]
    for h in TABLE:
        cells = []
        for alg in sorted(h.uses):
            u = h.uses[alg]
            cell = f"{alg}: `{u.symbol}` ({u.source})"
            olds = [o for o in u.old if o != h.name]
            if olds:
                cell += " [was " + ", ".join(f"`{o}`" for o in olds) + "]"
            if u.meaning:
                cell += f" - {u.meaning}"
            cells.append(cell)
        kind = " (cross-method)" if h.shared else ""
        lines.append(f"| `{h.name}`{kind} | {esc(h.meaning)} | " + esc("; ".join(cells)) + " |")
    return "\n".join(lines) + "\n"
