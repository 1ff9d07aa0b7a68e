"""How sharply the training loss curves at the current weights (λmax of its Hessian) and what that says of the
learning rate.

Gradient descent on a quadratic with curvature λ multiplies the distance to the minimum along that direction by
(1 − lr·λ) each step: it shrinks while lr < 2/λ and grows, changing sign every step, above. So a run whose
learning rate is above 2/λmax overshoots along the sharpest direction and its loss oscillates or diverges
(Cohen et al. 2021 watched real networks train at that edge: λmax rises to 2/lr and hovers there). λmax comes
from power iteration on Hessian-vector products (PyHessian's way), never from the full Hessian.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.numbers import fmt_number
from explorer.playground.landscape import net as nets

ITERATIONS = 100  # power iteration's most steps
TOLERANCE = 1e-3  # ... it stops when ‖Hv − λv‖ is this small against |λ| (the estimate's error is about its square)
STABLE, OSCILLATING = "stable", "oscillating"
MOMENTUM = 0.9  # the Playground's "momentum" optimiser (explorer/playground/catalogue.py)
SHARPNESS_POINTS = 200  # λmax over the steps: points kept, the older ones thinned


@dataclass(frozen=True)
class Curvature:
    lambda_max: float
    iterations: int  # HVPs used
    method: str  # nets.FINITE_DIFFERENCES or nets.EXACT
    vector: np.ndarray  # the sharpest direction (unit)
    converged: bool = True  # False: the iterations ran out first (the estimate is then a lower bound)


def _power(apply, v: np.ndarray, iterations: int) -> tuple[float, np.ndarray, int, bool]:
    """The eigenvalue of largest magnitude of the symmetric map `apply` (Rayleigh quotient), its vector, the steps,
    and whether it converged."""
    v = v / np.linalg.norm(v)
    estimate, used = 0.0, 0
    for used in range(1, iterations + 1):
        w = apply(v)
        estimate = float(v @ w)
        size = float(np.linalg.norm(w))
        if not np.isfinite(size) or size == 0:
            return (estimate if np.isfinite(estimate) else 0.0), v, used, True
        residual = float(np.linalg.norm(w - estimate * v))
        v = w / size
        if residual <= TOLERANCE * max(abs(estimate), 1e-12):
            return estimate, v, used, True
    return estimate, v, used, False


def lambda_max(net: nets.Net, params: np.ndarray, seed: int = 0, iterations: int = ITERATIONS) -> Curvature:
    """The largest eigenvalue of the training loss's Hessian at `params` by power iteration on HVPs. Power
    iteration finds the eigenvalue of largest magnitude; when that one is negative (the loss curves down more
    steeply than up), a second run on H − λ·I finds the top of the spectrum."""
    params = np.asarray(params, dtype=np.float64)
    method = [nets.EXACT]

    def apply(v):
        h = nets.hvp(net, params, v)
        method[0] = h.method
        return h.value

    start = np.random.default_rng(seed).standard_normal(len(params))
    top, v, used, done = _power(apply, start, iterations)
    if top < 0:
        shifted, v, more, done = _power(lambda u: apply(u) - top * u, start, iterations)
        top, used = shifted + top, used + more
    return Curvature(top, used, method[0], v, done)


@dataclass(frozen=True)
class Verdict:
    kind: str  # STABLE or OSCILLATING
    limit: float  # the largest stable learning rate along the sharpest direction (2/λ, or 2(1+β)/λ)
    sentence: str


def verdict(lr: float, lam: float, optimizer: str = "SGD", l2: float = 0.0, beta: float = MOMENTUM) -> Verdict:
    """Whether a step of `lr` overshoots along the sharpest direction, in a sentence.

    The curvature the step sees is λmax + L2 (weight decay adds L2·w to every gradient). Plain SGD overshoots above
    2/λ; heavy-ball momentum β above 2(1 + β)/λ. Adam divides each step by its running √v̂, so 2/λ is the rule for
    the same learning rate without it, said as such."""
    lam_eff = lam + (l2 if optimizer in ("SGD", "momentum") else 0.0)
    curv = "λmax + L2" if lam_eff != lam else "λmax"
    if optimizer == "momentum":
        factor, rule = 2 * (1 + beta), f"2(1+β)/{curv}"
    else:
        factor, rule = 2.0, f"2/{curv}"
    if not np.isfinite(lam_eff) or lam_eff <= 0:
        return Verdict(STABLE, float("inf"), f"The loss does not curve up in any direction here ({curv} = "
                       f"{fmt_number(lam_eff)}): no learning rate overshoots along the sharpest direction.")
    limit = factor / lam_eff
    above = lr > limit
    if optimizer in ("Adam", "AdamW"):
        plain = ("would overshoot along the sharpest direction" if above
                 else "would not overshoot even along the sharpest direction")
        return Verdict(OSCILLATING if above else STABLE, limit,
                       f"lr = {lr:g} is {'above' if above else 'below'} {rule} = {fmt_number(limit)}: plain gradient "
                       f"descent at this rate {plain}. Adam rescales each step by its running √v̂, so its steps are "
                       "not lr·g and this edge does not bound them.")
    if above:
        return Verdict(OSCILLATING, limit, f"lr = {lr:g} is above {rule} = {fmt_number(limit)}: along the sharpest "
                       "direction each step overshoots; expect the loss to oscillate or diverge.")
    return Verdict(STABLE, limit, f"lr = {lr:g} is below {rule} = {fmt_number(limit)}: even along the sharpest "
                   "direction a step does not overshoot, so the loss can fall steadily.")

@dataclass
class Sharpness:
    """λmax over the steps of one run, as the panel measured it (one point per measurement)."""

    run: str = ""
    steps: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    def add(self, run: str, step: int, value: float) -> None:
        if run != self.run:
            self.run, self.steps, self.values = run, [], []
        if self.steps and step <= self.steps[-1]:
            keep = [i for i, s in enumerate(self.steps) if s < step]
            self.steps, self.values = [self.steps[i] for i in keep], [self.values[i] for i in keep]
        self.steps.append(int(step))
        self.values.append(float(value))
        if len(self.steps) > SHARPNESS_POINTS:
            keep = [*range(0, len(self.steps) - 1, 2), len(self.steps) - 1]  # every other one, and the newest
            self.steps, self.values = [self.steps[i] for i in keep], [self.values[i] for i in keep]
