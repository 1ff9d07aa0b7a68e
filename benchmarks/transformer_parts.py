"""The transformer's parts as composites of primitives against what fused VJPs could cost (issue 35).

Run: python benchmarks/transformer_parts.py [--quick]

F.layer_norm and F.scaled_dot_product_attention are written from the primitives (mean, var, sqrt, div, matmul,
masked_fill, softmax…), so their backward runs one VJP per primitive. A fused primitive would do the forward and
the closed-form backward in hand-written NumPy: that is the "fused" column here (the same numbers, checked when
each case is built), so the ratio is what fusing could save at most. Forward + backward of transformer-sized
tensors, float64, BLAS on one thread, implementations interleaved round by round (benchmarks/run.py's
`interleaved`), medians. Figures depend on the machine's load: record `uptime` beside them.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import autograd  # noqa: E402
import autograd.functional as F  # noqa: E402
from autograd import Tensor  # noqa: E402
from benchmarks.run import interleaved  # noqa: E402


# ---- layer norm ------------------------------------------------------------------------------------------
def layer_norm_impls(rows=2048, width=128, eps=1e-5, seed=0):
    """{"composite": engine F.layer_norm forward + backward, "fused": the same by hand}, each returning the grads
    (x, weight, bias); checked equal here."""
    rng = np.random.default_rng(seed)
    x, w, b, g = rng.standard_normal((rows, width)), rng.standard_normal(width), rng.standard_normal(width), \
        rng.standard_normal((rows, width))

    def composite():
        xs, ws, bs = Tensor(x, requires_grad=True), Tensor(w, requires_grad=True), Tensor(b, requires_grad=True)
        F.layer_norm(xs, (width,), ws, bs, eps).backward(g)
        return xs.grad, ws.grad, bs.grad

    def fused():
        mu = x.mean(axis=-1, keepdims=True)
        xc = x - mu
        inv = 1.0 / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + eps)
        xhat = xc * inv
        gw = g * w
        dx = inv * (gw - gw.mean(axis=-1, keepdims=True) - xhat * (gw * xhat).mean(axis=-1, keepdims=True))
        return dx, (g * xhat).sum(axis=0), g.sum(axis=0)

    for a, c in zip(composite(), fused()):
        np.testing.assert_allclose(a, c, rtol=1e-9, atol=1e-12)
    return {"composite": composite, "fused": fused}


# ---- attention -------------------------------------------------------------------------------------------
def attention_impls(batch=8, heads=4, tokens=32, width=16, seed=0):
    """{"composite": engine F.scaled_dot_product_attention(is_causal=True) forward + backward, "fused": by hand},
    each returning the grads (q, k, v); checked equal here."""
    rng = np.random.default_rng(seed)
    shape = (batch, heads, tokens, width)
    q, k, v, g = (rng.standard_normal(shape) for _ in range(4))
    blocked = np.triu(np.ones((tokens, tokens), dtype=bool), 1)
    scale = 1 / math.sqrt(width)

    def composite():
        qs, ks, vs = (Tensor(a, requires_grad=True) for a in (q, k, v))
        F.scaled_dot_product_attention(qs, ks, vs, is_causal=True).backward(g)
        return qs.grad, ks.grad, vs.grad

    def fused():
        s = np.where(blocked, -np.inf, (q @ k.swapaxes(-1, -2)) * scale)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        dp = g @ v.swapaxes(-1, -2)
        ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * scale
        return ds @ k, ds.swapaxes(-1, -2) @ q, p.swapaxes(-1, -2) @ g

    for a, c in zip(composite(), fused()):
        np.testing.assert_allclose(a, c, rtol=1e-9, atol=1e-12)
    return {"composite": composite, "fused": fused}


CASES = {
    "layer_norm (2048, 128)": layer_norm_impls,
    "causal attention (8, 4, 32, 16)": attention_impls,
}


def lines(rounds: int) -> list[str]:
    out = [f"{'case':36} {'composite':>12} {'fused':>12} {'ratio':>7}"]
    for label, build in CASES.items():
        t = interleaved(build(), rounds)
        out.append(f"{label:36} {t['composite'] * 1e3:9.3f} ms {t['fused'] * 1e3:9.3f} ms "
                   f"{t['composite'] / t['fused']:6.2f}x")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds instead of 40")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    autograd.tune_malloc()  # as benchmarks/run.py does
    with threadpool_limits(limits=1):
        print("\n".join(lines(5 if args.quick else 40)))


if __name__ == "__main__":
    main()
