r"""002 Theorem 1 (optimisation part) that says something at every number of rounds: the minimum of proved bounds.

Setting (002 Alg. 1, rFedFair schedule, full participation, ``"average"`` output; normalised step ``h = lr L``):
``n`` ``L``-smooth convex clients with weights ``p``, ``kappa`` local steps per round, ``||theta_0 - theta*||^2 <=
D0``, ``rho^2 = sum_i p_i ||grad f_i(theta*)||^2``.  Every bound below is an exact certificate re-checked by the
trusted kernel (``fairtheory_kernel``); nothing here is trusted.

* **All rounds** (``"pep-potential"``, docs/proofs.md 8.3): for every ``T_N >= 0``, every ``h`` in
  :data:`STEP_RANGE` and every ``rho``, ``G(theta_tilde) - G* <= L D0/(2 h (T_N + 1)) + (c/2) L lr^2 rho^2``
  (``c = 17/32`` at ``kappa = 2``; :func:`potential_certificate`).  A quarter of 002 Thm. 1's first term, but still
  above the trivial ``L D0/2`` while ``h (T_N + 1) < 1``.
* **Per round** (rho = 0): the exact worst case ``L D0/(2 + 2 h (kappa T_N + 2))`` (:func:`rho0_value`), proved for
  every ``h`` in :data:`FAMILY_RANGE` by a ``"pep-family"`` certificate at :data:`FAMILY_ROUNDS` (those the family
  kernel's limits admit at ``kappa = 2``: ``T_N <= 4``; :func:`family_fits`), else by ``"pep-dual"`` certificates at
  the steps :data:`POINT_STEPS` (:func:`round_certificate`).  The one-dimensional Huber instance of
  :func:`huber_lower` attains the value (an exact run of the method in rationals), so these bounds are the worst case.
* **The trivial bound** ``L D0/2`` for every ``T_N >= 0`` and ``h`` in :data:`STEP_RANGE` (``rho = 0``;
  :func:`trivial_certificate`): the potential ``||theta - theta*||^2`` never grows, and at every round
  ``2 (G - G*) <= L ||theta - theta*||^2`` (the potential kernel's per-round conclusion, ``"final": "each"``).  With
  ``x = h (T_N + 1)`` it is ``1 + 2 x`` times the worst case, the potential ``2 + 1/x`` times: their minimum is within
  3x at every ``T_N`` and within 2x while ``x <= 1/2``.

:class:`ProvedBounds` re-checks a list of certificates once and answers, at ``(T_N, h)``, the smallest bound whose
(kernel-canonical) statement covers that point - "the minimum of proved bounds" - and which certificate gives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fairtheory.errors import FairtheoryValueError, SolverError

__all__ = ["CLAIM_ID", "KAPPA", "P", "STEP_RANGE", "FAMILY_RANGE", "ROUNDS", "FAMILY_ROUNDS", "POINT_STEPS",
           "rho0_value", "huber_lower", "family_fits", "family_statement", "point_statement", "potential_statement",
           "potential_certificate", "trivial_certificate", "round_statements", "round_certificate", "every_round_statements",
           "every_round_certificates", "ProvedBounds"]

#: the verify claim whose statements :func:`every_round_statements` writes (and whose shipped certificates it reads)
CLAIM_ID = "proofs.rcfl.theorem1.every_round"
#: the setting of issue 43's acceptance: two uniform clients, kappa = 2, rho = 0
KAPPA, P = 2, (Fraction(1, 2), Fraction(1, 2))
#: 002 Thm. 1's admissible steps h = lr L (its right-hand side is infinite at 0: the range starts at 2^-20)
STEP_RANGE = (Fraction(1, 2**20), Fraction(1, 40))
#: the range of the per-round pep-family certificates (as proofs.localgd.rho0_formula)
FAMILY_RANGE = (Fraction(0), Fraction(1, 2))
#: the rounds with a per-round certificate
ROUNDS = tuple(range(1, 9))
#: the rounds whose per-round certificate is a ``pep-family`` one (every step): those the family kernel admits at
#: ``kappa = 2`` (Gram dimension ``4 T_N + 6 <= 22``, ``1 + 2 T_N <= 12`` local steps; :func:`family_fits`)
FAMILY_ROUNDS = (1, 2, 3, 4)
#: the steps of the per-round pep-dual certificates where no family certificate is admitted (2^-20 is out of reach
#: of the exact-dual search: it finds no certificate there)
POINT_STEPS = (Fraction(1, 1000), Fraction(1, 100), Fraction(1, 40))


def _h(h: Any, what: str = "h") -> Fraction:
    if isinstance(h, bool) or not isinstance(h, (int, Fraction, str)):
        raise FairtheoryValueError(f"{what} must be an int, a Fraction or a rational string, got {type(h).__name__}")
    try:
        q = Fraction(h)
    except (ValueError, ZeroDivisionError):
        raise FairtheoryValueError(f"{what} must be a rational such as '1/40', got {h!r}") from None
    if q < 0:
        raise FairtheoryValueError(f"{what} must be >= 0, got {q}")
    return q


def _rounds(kappa: Any, T_N: Any) -> tuple[int, int]:
    for name, v, lo in (("kappa", kappa, 1), ("T_N", T_N, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise FairtheoryValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return kappa, T_N


def rho0_value(kappa: int, T_N: int, h: Any) -> Fraction:
    """``1/(2 + 2 h (kappa T_N + 2))``: the exact worst case of ``G(theta_tilde) - G*`` in units of ``L D0`` at
    ``rho = 0`` (proved where a per-round certificate exists; attained by :func:`huber_lower`)."""
    kappa, T_N = _rounds(kappa, T_N)
    return 1 / (2 + 2 * _h(h) * (kappa * T_N + 2))


def huber_lower(kappa: int, T_N: int, h: Any) -> Fraction:
    r"""A lower bound of the worst case at every ``T_N``, exactly: ``G(theta_tilde) - G*`` of 002 Alg. 1 (average
    output) run in rationals when every client is the 1-smooth convex Huber function ``f(x) = x^2/2`` for
    ``|x| <= tau``, ``tau |x| - tau^2/2`` otherwise, ``tau = 1/(1 + h (kappa T_N + 2))``, from ``x_0 = 1`` (``L = D0 =
    1``, ``rho = 0``; identical clients, so local GD is GD with one step in round 0 and ``kappa`` per round after).
    It equals :func:`rho0_value` (the iterates stay in the linear part)."""
    kappa, T_N = _rounds(kappa, T_N)
    t = _h(h)
    tau = 1 / (1 + t * (kappa * T_N + 2))
    x, total = Fraction(1), Fraction(0)
    for r in range(T_N + 1):
        for _ in range(1 if r == 0 else kappa):
            x -= t * (x if abs(x) <= tau else (tau if x > 0 else -tau))
        total += x
    y = total / (T_N + 1)
    return y * y / 2 if abs(y) <= tau else tau * abs(y) - tau * tau / 2


# ------------------------------------------------------------------------------------------------ statements
def family_statement(kappa: int, T_N: int, lo: Fraction = STEP_RANGE[0], hi: Fraction = STEP_RANGE[1],
                     p: Sequence[Fraction] = P) -> dict[str, Any]:
    """``{"kind": "pep-family", "statement"}``: for every ``h`` in ``[lo, hi]``, ``rho = 0``, the exact
    :func:`rho0_value` (its numerator 1, denominator ``2 + 2 (kappa T_N + 2) h``)."""
    from fairtheory.proofs.parametric import family_statement as make
    from fairtheory_kernel.family import poly

    num, den = poly([Fraction(1)]), poly([Fraction(2), Fraction(2 * (kappa * T_N + 2))])
    return {"kind": "pep-family", "statement": make(
        "local_gd", lo=lo, hi=hi, num=num, den=den, n=len(p), p=list(p), kappa=kappa, T_N=T_N, output="average",
        schedule="rfedfair")}


def point_statement(kappa: int, T_N: int, h: Fraction, p: Sequence[Fraction] = P) -> dict[str, Any]:
    """``{"kind": "pep-dual", "statement"}``: at the one step ``h`` (``L = D0 = 1``, ``rho = 0``) the exact
    :func:`rho0_value`."""
    from fairtheory.proofs.certificate import statement

    return {"kind": "pep-dual", "statement": statement(
        method={"name": "local_gd", "kappa": kappa, "T_N": T_N, "lr": h, "schedule": "rfedfair", "output": "average"},
        n=len(p), p=list(p), L=1, bound={"form": "constrained", "D0": 1, "rho2": 0, "value": rho0_value(kappa, T_N, h)})}


def family_fits(kappa: int, T_N: int, p: Sequence[Fraction] = P) -> bool:
    """Whether the ``pep-family`` kernel admits the per-round statement (its step and Gram-dimension limits; the
    kernel decides, :func:`fairtheory_kernel.family.build`)."""
    from fairtheory_kernel import family as F
    from fairtheory_kernel.rows import BadStatement

    try:
        F.build(F.canonical(family_statement(kappa, T_N, *FAMILY_RANGE, p=p)["statement"]))
    except (BadStatement, FairtheoryValueError):  # the statement writer re-raises the kernel's refusal
        return False
    return True


def trivial_certificate(kappa: int = KAPPA, p: Sequence[Fraction] = P,
                        h: tuple[Fraction, Fraction] = STEP_RANGE) -> dict[str, Any]:
    """``G(theta_tilde) - G* <= L D0/2`` for every ``T_N >= 0`` and ``h`` in ``h``, ``rho = 0`` (JSON): the local-GD
    potential ``||theta - theta*||^2`` with its one-round multipliers
    (:func:`fairtheory.proofs.potential_search._local_gd`), and the per-round final relation
    ``2 (G(x) - G*) <= ||x - x*||^2`` from each client's row ``(x*, x)`` with multiplier ``2 p_i`` (the slack is
    ``sum_i p_i ||x - x* - g_i||^2``)."""
    from fairtheory.proofs.potential_search import _kp, _local_gd, _row
    from fairtheory_kernel import potential_kernel as K

    st, ev = _local_gd(h[0], h[1], len(p), list(p), kappa, "rfedfair", (_kp(1), _kp(2)))
    st["bound"] = {"rho2": "0", "num": _kp(1), "den": _kp(2), "final": "each"}
    ob = K.obligations(K.canonical(st))["final"][0]
    ev["final"] = {"denominator": ["1"], "multipliers": [[_row(ob, i, None, ob.b.points[i][1][0]), _kp(2 * p[i])]
                                                         for i in range(len(p))]}
    return {"kind": "pep-potential", "version": 1, "statement": st, "evidence": ev,
            "meta": {"in_words": "the trivial bound L D0/2 for every T_N"}}


def potential_statement(kappa: int = KAPPA, p: Sequence[Fraction] = P, h: tuple[Fraction, Fraction] = STEP_RANGE
                        ) -> dict[str, Any]:
    """The all-round statement of :func:`potential_certificate` (``{"kind": "pep-potential", "statement"}``)."""
    return {"kind": "pep-potential", "statement": potential_certificate(kappa, p, h).statement}


def potential_certificate(kappa: int = KAPPA, p: Sequence[Fraction] = P,
                          h: tuple[Fraction, Fraction] = STEP_RANGE) -> Any:
    """For every ``T_N >= 0``, ``h`` in ``h`` and every ``rho``: ``L D0/(2 h (T_N + 1)) + (c/2) L lr^2 rho^2``
    (:func:`fairtheory.proofs.potential_search.prove_potential`, ``rho2="any"``; the potential
    ``||theta - theta*||^2``)."""
    from fairtheory.proofs.potential_search import prove_potential

    return prove_potential("local_gd", n=len(p), p=list(p), kappa=kappa, rho2="any", h=h)


def round_statements(kappa: int = KAPPA, rounds: Iterable[int] = ROUNDS, steps: Sequence[Fraction] = POINT_STEPS,
                     p: Sequence[Fraction] = P, family_rounds: Iterable[int] = FAMILY_ROUNDS) -> list[dict[str, Any]]:
    """The per-round statements: a ``pep-family`` one on :data:`STEP_RANGE` at each round of ``family_rounds``, else
    one ``pep-dual`` statement per step of ``steps``."""
    out, fam = [], set(family_rounds)
    for T_N in rounds:
        if T_N in fam:
            out.append(family_statement(kappa, T_N, p=p))
        else:
            out += [point_statement(kappa, T_N, h, p) for h in steps]
    return out


def round_certificate(kappa: int, T_N: int, h: Fraction | None = None, p: Sequence[Fraction] = P) -> dict[str, Any]:
    """Search (untrusted) a per-round certificate (JSON): ``h=None``: the ``pep-family`` one on :data:`FAMILY_RANGE`
    (:func:`fairtheory.proofs.parametric.prove_family`); else the ``pep-dual`` one at ``h`` whose bound *equals*
    :func:`rho0_value` (:func:`fairtheory.proofs.certificate.certify_exact`).  Raises ``SolverError`` when none is
    found."""
    kappa, T_N = _rounds(kappa, T_N)
    if h is None:
        from fairtheory.proofs.parametric import prove_family

        return prove_family("local_gd", n=len(p), p=list(p), kappa=kappa, T_N=T_N, output="average",
                            schedule="rfedfair", rho2=0, h=FAMILY_RANGE).to_json()
    from fairtheory.proofs.certificate import certify_exact

    c = certify_exact(point_statement(kappa, T_N, _h(h), p)["statement"], rho0_value(kappa, T_N, h))
    if c is None:
        raise SolverError(f"exact pep-dual certificate at kappa = {kappa}, T_N = {T_N}, h = {h}", "certify_exact",
                          "not found")
    return c.to_json()


def every_round_statements(kappa: int = KAPPA, rounds: Iterable[int] = ROUNDS,
                           steps: Sequence[Fraction] = POINT_STEPS) -> list[dict[str, Any]]:
    """What ``proofs.rcfl.theorem1.every_round`` declares: the all-round potential statement, the trivial bound's
    (:func:`trivial_certificate`), then :func:`round_statements`."""
    triv = trivial_certificate(kappa)
    return [potential_statement(kappa), {"kind": "pep-potential", "statement": triv["statement"]}] + round_statements(
        kappa, rounds, steps)


def every_round_certificates(*, quick: bool, kappa: int = KAPPA, rounds: Iterable[int] = ROUNDS, search: bool = True,
                             steps: Sequence[Fraction] = POINT_STEPS) -> list[dict[str, Any] | None]:
    """One certificate (JSON, untrusted until re-checked) per statement of :func:`every_round_statements`, in the
    same order: the potential's from :func:`potential_certificate`; a per-round one from the shipped file of
    :data:`CLAIM_ID` in quick mode when it holds one whose statement implies the declared one, else searched
    (:func:`fairtheory.proofs.shipped.shipped_or_search`); ``None`` where the search finds none.  ``search=False``:
    the shipped file's only, whatever the mode and ``FAIRTHEORY_SHIPPED`` say (``None`` where it holds none; for
    figures and tests that must not run the searches, several minutes)."""
    from fairtheory.proofs.shipped import find, shipped_or_search

    certs: list[dict[str, Any] | None] = [potential_certificate(kappa).to_json(), trivial_certificate(kappa)]
    for st in round_statements(kappa, rounds, steps):
        m = st["statement"]["method"]
        h = None if st["kind"] == "pep-family" else Fraction(m["lr"])

        def run(T_N: int = m["T_N"], h: Fraction | None = h) -> dict[str, Any] | None:
            try:
                return round_certificate(kappa, T_N, h)
            except SolverError:
                return None

        certs.append(shipped_or_search(CLAIM_ID, run, declared=st, quick=quick) if search else find(CLAIM_ID, st))
    return certs


# ------------------------------------------------------------------------------------------------ the minimum
def _tpoly(cs: Sequence[str], t: Fraction) -> Fraction:
    return sum((Fraction(c) * t**j for j, c in enumerate(cs)), Fraction(0))


def _kpoly(kp: Sequence[Sequence[str]], k: int, t: Fraction) -> Fraction:
    return sum((_tpoly(c, t) * k**m for m, c in enumerate(kp)), Fraction(0))


@dataclass
class ProvedBounds:
    """Certificates re-checked once (:func:`fairtheory_kernel.check.check_proof`); :meth:`at` gives the minimum, at one
    ``(T_N, h)`` and ``rho = 0`` (``L = D0 = 1``), of the bounds their kernel-canonical statements state there.

    A statement covers ``(T_N, h)`` for local GD with ``kappa`` steps, ``n`` clients of weights ``p``, rFedFair
    schedule, average output, ``L``-smooth convex (``mu = 0``) when: ``pep-potential``: ``h`` in its range (every
    ``T_N``; an every-``rho`` statement read at ``rho = 0``); ``pep-family``: its ``T_N`` and ``h`` in its range;
    ``pep-dual``: its ``T_N``, ``lr = h`` with ``L = 1``, ``D0 = 1`` and ``rho2 = 0``."""

    certificates: Sequence[Any]
    kappa: int = KAPPA
    p: Sequence[Fraction] = P
    #: the canonical statements ``{"kind", "statement"}`` of the certificates that re-checked
    statements: list[dict[str, Any]] = field(init=False)
    #: per certificate: whether it re-checked
    checked: list[bool] = field(init=False)

    def __post_init__(self) -> None:
        from fairtheory_kernel.check import check_proof, statement_of

        self.checked, self.statements = [], []
        for c in self.certificates:
            st = statement_of(c) if isinstance(c, dict) else None
            ok = st is not None and check_proof(c)
            self.checked.append(ok)
            if ok:
                self.statements.append(st)

    def _same_problem(self, st: dict[str, Any]) -> bool:
        m, cl = st["method"], st["class"]
        return (m.get("name") == "local_gd" and m.get("kappa") == self.kappa and m.get("schedule") == "rfedfair"
                and m.get("output") == "average" and st["n"] == len(self.p)
                and [Fraction(x) for x in st["p"]] == list(self.p) and cl.get("functions") == "smooth-convex"
                and Fraction(cl.get("mu", "0")) == 0)

    def bound_of(self, s: dict[str, Any], T_N: int, h: Fraction) -> Fraction | None:
        """The bound statement ``s`` (``{"kind", "statement"}``, canonical) states at ``(T_N, h)``, or ``None`` when it
        does not cover that point."""
        kind, st = s["kind"], s["statement"]
        if not self._same_problem(st):
            return None
        if kind in ("pep-potential", "pep-family"):
            par = st["parameter"]
            if not Fraction(par["lo"]) <= h <= Fraction(par["hi"]):
                return None
            if kind == "pep-family":
                if st["method"]["T_N"] != T_N or Fraction(st["bound"]["rho2"]) != 0:
                    return None
                return _tpoly(st["bound"]["value"]["num"], h) / _tpoly(st["bound"]["value"]["den"], h)
            return _kpoly(st["bound"]["num"], T_N, h) / _kpoly(st["bound"]["den"], T_N, h)
        if kind == "pep-dual":
            b = st["bound"]
            if (st["method"]["T_N"] != T_N or Fraction(st["method"]["lr"]) != h or Fraction(st["class"]["L"]) != 1
                    or b.get("form") != "constrained" or Fraction(b["D0"]) != 1 or Fraction(b["rho2"]) != 0):
                return None
            return Fraction(b["value"])
        return None

    def at(self, T_N: int, h: Any) -> tuple[Fraction, int] | None:
        """``(the smallest proved bound at (T_N, h), index into statements)``, or ``None`` when none covers it."""
        _rounds(self.kappa, T_N)
        t = _h(h)
        best: tuple[Fraction, int] | None = None
        for i, s in enumerate(self.statements):
            b = self.bound_of(s, T_N, t)
            if b is not None and (best is None or b < best[0]):
                best = (b, i)
        return best
