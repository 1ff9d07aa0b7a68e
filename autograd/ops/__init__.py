"""The primitives: each op's forward, its vector-Jacobian product, its formula, shape rule and surfaces,
declared once, in one block of one module of this package, and collected in PRIMITIVES.

    arithmetic   add sub mul div pow neg maximum minimum
    linalg       matmul linear
    elementwise  exp log sqrt abs relu tanh sigmoid gelu silu clip masked_fill where detach round
    reductions   sum mean max min var std softmax log_softmax
    shapes       getitem reshape unsqueeze squeeze transpose concat stack
    losses       cross_entropy bce_with_logits mse_loss

Every VJP follows the contract stated on `Primitive` (autograd/tensor.py):
    vjp(g, out, *inputs, need, **meta) -> one gradient (or None) per input.
Gradients may keep `out`'s broadcast shape; the engine sums them back to each input's shape.
Each VJP body is written once, against `xp` (xp_array.py on the fast path, xp_tensor.py under create_graph,
where the same body records its gradient from the primitives: autograd/higher.py); elementwise.normal_cdf
is the one primitive outside PRIMITIVES, made only by gelu's recorded VJP.
The `formula` of each primitive is what the Backward Stepper shows (G is the upstream gradient).
Beside its VJP each primitive declares its JVP (forward mode, autograd/forward.py):
    jvp(tangents, out, *inputs, **meta) -> the output's tangent, None standing for an input without one,
with its `jvp_formula` (dOut = ...) and `jvp_plugged` (tests/engine/test_forward.py checks each against J·v).
The Tensor operators and methods, `autograd.functional`, the expression language and the graph
drawings all come from, or are checked against, PRIMITIVES (tests/engine/test_registry.py).
"""

from autograd.ops._common import as_tensor, broadcast_shape, pair
from autograd.ops.arithmetic import (
    ADD, DIV, MAXIMUM, MINIMUM, MUL, NEG, POW, SUB, add, div, maximum, minimum, mul, neg, pow, sub,
)
from autograd.ops.elementwise import (
    ABS, CLIP, DETACH, EXP, GELU, LOG, MASKED_FILL, RELU, ROUND, SIGMOID, SILU, SQRT, TANH, WHERE,
    abs, clip, detach, exp, gelu, log, masked_fill, relu, round, sigmoid, silu, sqrt, stable_sigmoid, tanh, where,
)
from autograd.ops.linalg import LINEAR, MATMUL, linear, matmul, matmul_work
from autograd.ops.losses import (
    BCE_WITH_LOGITS, CROSS_ENTROPY, MSE_LOSS, binary_cross_entropy_with_logits, cross_entropy, mse_loss,
)
from autograd.ops.reductions import (
    LOG_SOFTMAX, MAX, MEAN, MIN, SOFTMAX, STD, SUM, VAR,
    log_softmax, log_softmax_array, max, mean, min, softmax, softmax_array, std, sum, var,
)
from autograd.ops.shapes import (
    CONCAT, GETITEM, RESHAPE, SQUEEZE, STACK, TRANSPOSE, UNSQUEEZE,
    concat, getitem, reshape, squeeze, stack, transpose, unsqueeze,
)
from autograd.tensor import Tensor

PRIMITIVES = {
    p.name: p
    for p in (
        ADD, SUB, MUL, DIV, POW, NEG, MAXIMUM, MINIMUM, MATMUL, LINEAR,
        EXP, LOG, SQRT, ABS, RELU, TANH, SIGMOID, GELU, SILU, CLIP, MASKED_FILL, WHERE, DETACH, ROUND,
        SUM, MEAN, MAX, MIN, VAR, STD, SOFTMAX, LOG_SOFTMAX,
        GETITEM, RESHAPE, UNSQUEEZE, SQUEEZE, TRANSPOSE, CONCAT, STACK,
        CROSS_ENTROPY, BCE_WITH_LOGITS, MSE_LOSS,
    )
}


# ---- comparisons (no gradient) ---------------------------------------------------------------
def compare(fn, a, b):
    """fn(a, b) for a NumPy comparison `fn`: a boolean Tensor that records no graph (a mask)."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        a, b = pair(a, b)
    try:
        out = fn(a.data, b.data)
    except ValueError:
        broadcast_shape(fn.__name__)(a.shape, b.shape)
        raise
    return Tensor._constant(out)

# ---- Tensor's operators and methods that are primitives' forwards themselves ----------------------
# Bound here, once all of ops exists, and written out one by one, so grep finds where each comes from;
# tests/engine/test_registry.py checks them against the surfaces each primitive declares.
Tensor.__add__ = add
Tensor.__sub__ = sub
Tensor.__mul__ = mul
Tensor.__truediv__ = div
Tensor.__pow__ = pow
Tensor.__matmul__ = matmul
Tensor.__neg__ = neg
Tensor.__getitem__ = getitem
Tensor.pow = pow
Tensor.exp = exp
Tensor.log = log
Tensor.sqrt = sqrt
Tensor.abs = abs
Tensor.relu = relu
Tensor.tanh = tanh
Tensor.sigmoid = sigmoid
Tensor.gelu = gelu
Tensor.silu = silu
Tensor.sum = sum
Tensor.mean = mean
Tensor.max = max
Tensor.min = min
Tensor.var = var
Tensor.std = std
Tensor.softmax = softmax
Tensor.log_softmax = log_softmax
Tensor.reshape = reshape
Tensor.transpose = transpose
Tensor.unsqueeze = unsqueeze
Tensor.squeeze = squeeze
Tensor.masked_fill = masked_fill
Tensor.clip = clip
Tensor.round = round

__all__ = [
    "PRIMITIVES", "as_tensor", "compare", "matmul_work", "stable_sigmoid", "softmax_array", "log_softmax_array",
    "add", "sub", "mul", "div", "pow", "neg", "maximum", "minimum", "matmul", "linear",
    "exp", "log", "sqrt", "abs", "relu", "tanh", "sigmoid", "gelu", "silu", "clip", "masked_fill", "where",
    "detach", "round",
    "sum", "mean", "max", "min", "var", "std", "softmax", "log_softmax",
    "getitem", "reshape", "unsqueeze", "squeeze", "transpose", "concat", "stack",
    "cross_entropy", "binary_cross_entropy_with_logits", "mse_loss",
]
