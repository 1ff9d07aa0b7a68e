"""How a program's scalar output curves at its point (issue 32): H·v three ways with their costs, and for a few
input numbers the whole Hessian with its eigenvalues. No Streamlit.

    c = curvature(text)                  # H·v along a seeded random unit v, and H when n ≤ MAX_HESSIAN
    c.ways                               # reverse-over-reverse, forward-over-reverse, finite differences
    c.hessian, c.eigenvalues, c.kind     # 'minimum', 'maximum', 'saddle', 'flat', ...
    c.kinks                              # nodes where the program is not twice differentiable (kinks.py)

H·v three ways: reverse over reverse (record the gradient g with create_graph, then one backward pass of Σ g·v
through the graph both passes made), forward over reverse (the same recorded g, then one forward-mode pass pushing
v through g's graph: the JVP of the gradient) and central differences of the gradient, (g(x + εv) − g(x − εv)) / 2ε.
Operations are counted on each node's own VJP and JVP, as the "Forward vs reverse" tab counts them (mode_cost.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from autograd import grad
from autograd.forward import push_tangents
from autograd.func import reverse_blocks
from autograd.tensor import toposort
from explorer.program import kinks as kink_rules
from explorer.program.mode_cost import forward_pass_operations, reverse_pass_operations
from explorer.program.poke import resolve
from language import compile_program

#: The whole Hessian is built (n reverse passes through the gradient's graph) up to this many input numbers.
MAX_HESSIAN = 64
#: The direction v: a seeded random unit vector, all ones, or one input number's basis vector.
RANDOM, ONES, BASIS = "random", "ones", "basis"
DIRECTIONS = (RANDOM, ONES, BASIS)
SEED = 0
#: Central differences' step along v, relative to the point's size (their error is ~ε² against rounding's ~1e-16/ε).
EPS = 1e-5
#: Exact HVPs agree to this relative error, finite differences to FD_AGREE (relative to the largest |H·v|).
EXACT_AGREE, FD_AGREE = 1e-9, 1e-4
REVERSE, FORWARD, FD = "reverse", "forward", "fd"


@dataclass(frozen=True)
class Way:
    """One way of computing H·v and what it cost."""

    way: str  # REVERSE, FORWARD or FD
    label: str
    passes: str  # the passes it takes, in words
    operations: int  # counted on the derivative passes (every way also runs f's forward pass: fd twice)
    seconds: float
    value: np.ndarray  # H·v, flat over the input numbers


@dataclass(frozen=True)
class Curvature:
    """H·v (and H) of a program's output at its point, or a note saying why there is nothing to show."""

    note: str  # '' when H·v was computed; else why not (a non-scalar output, nothing to differentiate)
    inputs: tuple = ()  # (name, shape) of each input the derivatives are with respect to
    n: int = 0
    direction: str = RANDOM
    element: int = 0  # for BASIS: which input number
    v: np.ndarray | None = None
    ways: tuple = ()  # of Way: reverse-over-reverse, forward-over-reverse, finite differences
    eps: float = 0.0
    hessian: np.ndarray | None = None  # n × n, when n ≤ MAX_HESSIAN
    hessian_note: str = ""  # why it was not built, when it was not
    eigenvalues: np.ndarray | None = None  # of (H + Hᵀ)/2, ascending, when H is built and finite
    gradient_norm: float = 0.0  # ‖∇f‖ at the point (the signs classify a stationary point only where it is 0)
    kinks: tuple = ()  # of kinks.Kink

    def way(self, name: str) -> Way:
        return next(w for w in self.ways if w.way == name)

    @property
    def element_names(self) -> tuple[str, ...]:
        return element_names(self.inputs)

    def difference(self, a: str, b: str) -> float:
        """max |H·v by a − H·v by b| over the entries finite both ways (inf where one is finite, the other not)."""
        x, y = self.way(a).value, self.way(b).value
        finite = np.isfinite(x) & np.isfinite(y)
        if np.any(np.isfinite(x) != np.isfinite(y)):
            return math.inf
        with np.errstate(invalid="ignore"):  # nan − nan outside ``finite``, not looked at
            return float(np.max(np.abs(x - y), where=finite, initial=0.0))

    @property
    def scale(self) -> float:
        """The largest finite |H·v| (reverse over reverse's): what the differences are against."""
        value = self.way(REVERSE).value
        return float(np.max(np.abs(value), where=np.isfinite(value), initial=0.0))

    @property
    def exact_agree(self) -> bool:
        return self.difference(REVERSE, FORWARD) <= EXACT_AGREE * max(1.0, self.scale)

    @property
    def fd_agree(self) -> bool:
        return self.difference(REVERSE, FD) <= FD_AGREE * max(1.0, self.scale)

    @property
    def asymmetry(self) -> float | None:
        """max |H − Hᵀ| over H's finite entries, when H is built."""
        if self.hessian is None:
            return None
        gap = self.hessian - self.hessian.T
        return float(np.max(np.abs(gap), where=np.isfinite(gap), initial=0.0))

    @property
    def kind(self) -> str | None:
        """What the eigenvalues' signs say (see classify), when they were computed."""
        return None if self.eigenvalues is None else classify(self.eigenvalues)


def element_names(inputs) -> tuple[str, ...]:
    """'x[0, 1]' (or 'a' for a one-number input) for every input number, in order."""
    names = []
    for name, shape in inputs:
        if shape == ():
            names.append(name)
            continue
        names.extend(f"{name}[{', '.join(map(str, index))}]" for index in np.ndindex(*shape))
    return tuple(names)


def zero_tolerance(eigenvalues: np.ndarray) -> float:
    """Below this |λ| an eigenvalue counts as 0 (rounding's size for a matrix of these eigenvalues)."""
    return 1e-8 * max(1.0, float(np.max(np.abs(eigenvalues), initial=0.0)))


MINIMUM, MAXIMUM, SADDLE, FLAT, VALLEY, RIDGE = "minimum", "maximum", "saddle", "flat", "valley", "ridge"


def classify(eigenvalues: np.ndarray) -> str:
    """The shape the Hessian's eigenvalue signs give: MINIMUM (all > 0: curves up every way), MAXIMUM (all < 0),
    SADDLE (both signs), FLAT (all 0), VALLEY (≥ 0 with flat directions), RIDGE (≤ 0 with flat directions)."""
    tol = zero_tolerance(eigenvalues)
    up, down = int(np.sum(eigenvalues > tol)), int(np.sum(eigenvalues < -tol))
    flat = len(eigenvalues) - up - down
    if up and down:
        return SADDLE
    if not up and not down:
        return FLAT
    if up:
        return VALLEY if flat else MINIMUM
    return RIDGE if flat else MAXIMUM


def sign_counts(eigenvalues: np.ndarray) -> tuple[int, int, int]:
    """(positive, zero, negative) eigenvalues, zero within zero_tolerance."""
    tol = zero_tolerance(eigenvalues)
    up, down = int(np.sum(eigenvalues > tol)), int(np.sum(eigenvalues < -tol))
    return up, len(eigenvalues) - up - down, down


def direction_vector(direction: str, element: int, n: int) -> np.ndarray:
    """v over the n input numbers: RANDOM (seeded normal draws, scaled to length 1), ONES, or BASIS (e_element)."""
    if direction == RANDOM:
        v = np.random.default_rng(SEED).standard_normal(n)
        return v / np.linalg.norm(v) if n else v
    if direction == ONES:
        return np.ones(n)
    if direction == BASIS:
        if not 0 <= element < n:
            raise ValueError(f"the direction's input number {element} is not one of the {n} input numbers")
        v = np.zeros(n)
        v[element] = 1.0
        return v
    raise ValueError(f"unknown direction {direction!r}: one of {', '.join(DIRECTIONS)}")


def _split(flat: np.ndarray, leaves) -> list[np.ndarray]:
    parts, at = [], 0
    for leaf in leaves:
        size = leaf.data.size
        parts.append(flat[at:at + size].reshape(leaf.data.shape))
        at += size
    return parts


def _flat(arrays, leaves) -> np.ndarray:
    return np.concatenate([np.zeros(leaf.data.size) if a is None else np.asarray(a, np.float64).reshape(-1)
                           for a, leaf in zip(arrays, leaves)]) if leaves else np.zeros(0)


def _recorded(output, leaves):
    return grad(output, leaves, create_graph=True, allow_unused=True)


def _order_of(roots) -> list:
    """The nodes of every root's graph, parents first (one toposort's order after another, each node once)."""
    seen, order = set(), []
    for root in roots:
        for node in toposort(root):
            if node not in seen:
                seen.add(node)
                order.append(node)
    return order


def _reverse_over_reverse(output, leaves, vs):
    grads = _recorded(output, leaves)
    total = None
    for g, v in zip(grads, vs):
        if g is not None and g.requires_grad:
            term = (g * v).sum()
            total = term if total is None else total + term
    if total is None:  # the gradient is a constant: f is at most linear in its inputs
        return [None] * len(leaves), grads, None
    return list(grad(total, leaves, allow_unused=True)), grads, total


def _forward_over_reverse(output, leaves, vs):
    grads = _recorded(output, leaves)
    live = [g for g in grads if g is not None and g.requires_grad]
    order = _order_of(live)
    tangents = push_tangents(order, dict(zip(leaves, vs)))
    return [None if g is None else tangents.get(g) for g in grads], order


def _gradient_at(program, given: dict, names, leaves_of, shift: list[np.ndarray]):
    moved = {**given}
    for name, leaf_value, s in zip(names, leaves_of, shift):
        moved[name] = leaf_value + s
    result = program.run(inputs=moved)
    leaves = [result.inputs[name] for name in names]
    if not result.output.requires_grad:
        return [None] * len(leaves)
    found = grad(result.output, leaves, allow_unused=True)
    return [None if g is None else g.data for g in found]


def _timed(clock, fn, *args):
    start = clock()
    value = fn(*args)
    return value, clock() - start


def curvature(text: str, poked: tuple = (), direction: str = RANDOM, element: int = 0,
              clock: Callable[[], float] = time.perf_counter, max_hessian: int = MAX_HESSIAN) -> Curvature:
    """H·v of the program's output at its point (the program's values, or the poked ones) three ways, for the
    ``direction`` (RANDOM, ONES, or BASIS: input number ``element``); and its whole Hessian when the inputs hold
    at most ``max_hessian`` numbers. Inputs that set a shape, an index or an axis are held fixed."""
    program = compile_program(text)
    given = resolve(program, tuple(poked))
    result = program.run(inputs=given)
    output = result.output
    names = [name for name in result.inputs if name not in program.fixed]
    leaves = [result.inputs[name] for name in names]
    inputs = tuple((name, tuple(leaf.data.shape)) for name, leaf in zip(names, leaves))
    n = sum(leaf.data.size for leaf in leaves)
    if output.data.size != 1:
        return Curvature(note=f"The output has shape {tuple(output.shape)} ({output.data.size:,} numbers): a "
                              "Hessian needs one number out. Make the last line a scalar, e.g. its `.sum()` or "
                              "`.mean()`, or a loss.", inputs=inputs, n=n)
    if not output.requires_grad or n == 0:
        return Curvature(note="The output does not depend on any input number that can be nudged: there is nothing "
                              "to differentiate, once or twice.", inputs=inputs, n=n)
    element = element if direction == BASIS and 0 <= element < n else 0  # a pick from another program: its first
    v = direction_vector(direction, element, n)
    vs = _split(v, leaves)
    with np.errstate(all="ignore"):
        (rr, grads, total), rr_s = _timed(clock, _reverse_over_reverse, output, leaves, vs)
        (fr, g_order), fr_s = _timed(clock, _forward_over_reverse, output, leaves, vs)
        x = [leaf.data for leaf in leaves]
        size = max(1.0, max(float(np.max(np.abs(a), initial=0.0)) for a in x))
        eps = EPS * size / float(np.max(np.abs(v), initial=1.0))
        start = clock()
        plus = _gradient_at(program, given, names, x, [eps * s for s in vs])
        minus = _gradient_at(program, given, names, x, [-eps * s for s in vs])
        fd = (_flat(plus, leaves) - _flat(minus, leaves)) / (2 * eps)
        fd_s = clock() - start
    forward_graph = toposort(output)
    one_reverse = reverse_pass_operations(forward_graph)
    second = reverse_pass_operations(_order_of([total])) if total is not None else 0
    jvp_ops = forward_pass_operations(g_order, leaves)
    ways = (
        Way(REVERSE, "reverse over reverse", "1 forward, 1 reverse (recorded), 1 reverse through both",
            one_reverse + second, rr_s, _flat(rr, leaves)),
        Way(FORWARD, "forward over reverse", "1 forward, 1 reverse (recorded), 1 forward-mode through it",
            one_reverse + jvp_ops, fr_s, _flat(fr, leaves)),
        Way(FD, "finite differences", "2 forward, 2 reverse (the gradient at x ± εv)", 2 * one_reverse, fd_s, fd),
    )
    gradient = _flat([None if g is None else g.data for g in grads], leaves)
    finite = np.isfinite(gradient)
    hessian = eigenvalues = None
    hessian_note = ""
    if n > max_hessian:
        hessian_note = (f"The Hessian is not drawn: the inputs hold {n:,} numbers, more than the {max_hessian} drawn "
                        f"here (it would be {n:,} × {n:,} = {n * n:,} entries, from {n:,} reverse passes through the "
                        "gradient's graph). H·v above needs none of it.")
    else:
        hessian = _hessian(grads, leaves, n)
        if np.all(np.isfinite(hessian)):
            eigenvalues = np.linalg.eigvalsh((hessian + hessian.T) / 2)
        else:
            hessian_note = "Some of the Hessian's entries are nan or inf here, so it has no eigenvalues to show."
    return Curvature(
        note="", inputs=inputs, n=n, direction=direction, element=element, v=v, ways=ways, eps=eps,
        hessian=hessian, hessian_note=hessian_note, eigenvalues=eigenvalues,
        gradient_norm=float(np.linalg.norm(gradient[finite])) if finite.any() else math.nan,
        kinks=tuple(kink_rules.kinks_at(output, result.uses)),
    )


def _hessian(grads, leaves, n: int) -> np.ndarray:
    """H (n × n): row block i from reverse passes through leaf i's recorded gradient, one per number it holds."""
    rows = []
    for g, leaf in zip(grads, leaves):
        if g is None or not g.requires_grad:
            rows.append(np.zeros((leaf.data.size, n)))
            continue
        with np.errstate(all="ignore"):
            blocks, _ = reverse_blocks(g, leaves)
        rows.append(np.concatenate([b.astype(np.float64) for b in blocks], axis=1))
    return np.concatenate(rows, axis=0) if rows else np.zeros((0, 0))
