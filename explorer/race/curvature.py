"""The race's surface's curvature at the start point: its 2 × 2 Hessian (central differences of the engine's
gradient), the eigenvalues and eigen-directions, and for each optimiser its learning rate against the edge where
its steps overshoot along the sharpest direction (2/λmax; 2(1+β)/λmax with momentum: see
explorer/playground/landscape/curvature.py, the Playground's Landscape tab's rule)."""

from __future__ import annotations

import numpy as np

from explorer.numbers import fmt_number
from explorer.playground.landscape import curvature
from explorer.race import course
from language import compile_program

STEP = 1e-5  # the central difference's step, relative to the point's size


def hessian_at(surface, point) -> np.ndarray:
    """The symmetric 2 × 2 Hessian of `surface` (point -> (loss, gradient)) at `point`, column j from
    (∇f(p + h·eⱼ) − ∇f(p − h·eⱼ)) / 2h in float64."""
    p = np.asarray(point, dtype=np.float64)
    h = STEP * max(1.0, float(np.abs(p).max()))
    cols = [(surface(p + h * e)[1] - surface(p - h * e)[1]) / (2 * h) for e in np.eye(2)]
    H = np.column_stack(cols)
    return (H + H.T) / 2


def race_curvature(race: course.Race) -> dict:
    """The Hessian at the race's start, its eigen-pairs (largest first) and each runner's verdict."""
    program = compile_program(race.text)
    surface = course._Surface(program, race.x, race.y)
    with np.errstate(all="ignore"):
        H = hessian_at(surface, race.start)
    if not np.isfinite(H).all():
        return {"ok": False, "sentence": "The surface's curvature at the start is not a finite number."}
    values, vectors = np.linalg.eigh(H)
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    lam = float(values[0])
    runners = []
    for r in race.runners:
        name = {"sgd": "SGD", "momentum": "momentum", "nesterov": "momentum"}.get(r.kind, "Adam")
        said = curvature.verdict(r.lr, lam, name, r.weight_decay if name != "Adam" else 0.0, beta=r.momentum)
        runners.append({"title": r.title(), "verdict": said.kind, "limit": said.limit, "sentence": said.sentence})
    where = f"({fmt_number(race.start[0])}, {fmt_number(race.start[1])})"
    axes = "; ".join(f"λ = {fmt_number(float(v))} along ({fmt_number(float(d[0]))}, {fmt_number(float(d[1]))})"
                     for v, d in zip(values, vectors.T))
    edge = f"2/λmax = {fmt_number(2 / lam)}" if lam > 0 else "no learning rate overshoots along it"
    return {"ok": True, "hessian": H.tolist(), "eigenvalues": values.tolist(), "directions": vectors.T.tolist(),
            "lambda_max": lam, "runners": runners,
            "sentence": f"The Hessian at the start {where}: {axes}. {edge}."}
