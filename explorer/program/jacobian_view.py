"""What the Jacobian view shows for an op node (autograd.jacobian as JSON-ready data): each input's J as a
labelled heatmap, a one-line reading of its structure, the upstream g, gᵀJ beside the VJP's own result,
the check against central differences, and the cost (numbers in J against operations the VJP did).

Plain Python (no Streamlit). ``node_jacobian`` and ``step_jacobians`` take a program's text and its poked
values and return plain data, so the pages can run them in-process or in a worker.
"""

from __future__ import annotations

import math

import numpy as np

from autograd.graph import order, trace
from autograd.jacobian import LIMIT, NodeJacobian, counted_vjp, jacobian
from explorer.graph import names as graph_names
from explorer.graph.dot import slot_names
from explorer.numbers import finite_or_none, fmt_number, json_numbers, shape_text
from explorer.program import kinks, poke
from language import compile_program

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
#: Jacobian entries (shown blocks) sent with the Backward Stepper's steps; later steps' are asked for.
STEP_BUDGET = 20_000
#: Up to this many entries per block, central differences are sent cell by cell (for the hover).
NUMERIC_CELLS = 1024
#: What building one node's view may cost (see view_limit): numbers in its rows or its columns, and operations.
VIEW_ENTRIES = 4_000_000
VIEW_WORK = 40_000_000


def _full(values, limit: int = LIMIT) -> list:
    """The first ``limit`` numbers at full precision (the vectors compared to the printed precision)."""
    return [finite_or_none(v) for v in np.asarray(values, dtype=np.float64).ravel()[:limit]]


# ----------------------------------------------------------------------------- reading J's structure


def _block_diagonal(m: np.ndarray) -> tuple[int, int, int] | None:
    """(blocks, rows, cols) of the most blocks J splits into along its diagonal (zero elsewhere), if more than one."""
    r, c = m.shape
    for blocks in range(math.gcd(r, c), 1, -1):
        if r % blocks or c % blocks:
            continue
        br, bc = r // blocks, c // blocks
        mask = np.kron(np.eye(blocks, dtype=bool), np.ones((br, bc), dtype=bool))
        if not np.any(m[~mask]) and all(np.any(m[i * br:(i + 1) * br, i * bc:(i + 1) * bc]) for i in range(blocks)):
            return blocks, br, bc
    return None


def _kron_identity(m: np.ndarray) -> int | None:
    """p > 1 if J = B ⊗ Iₚ for some B (each output element of a block row sees only its own column)."""
    r, c = m.shape
    for p in range(math.gcd(r, c), 1, -1):
        if r % p or c % p:
            continue
        b = m[::p, ::p]
        if np.array_equal(np.kron(b, np.eye(p)), m) and np.count_nonzero(b) > 1:
            return p
    return None


def _kron_factor(b: np.ndarray) -> str:
    """The B of J = B ⊗ Iₚ as its numbers: ``0.5 · [1 1]`` when they are all one number (a mean over an axis),
    ``[1 2 ; 3 4]`` when small, else its shape."""
    rows = " ; ".join(" ".join("1" for _ in row) for row in b)
    if np.all(b == b.flat[0]):
        scale = "" if b.flat[0] == 1 else f"{fmt_number(b.flat[0])} · "
        return f"{scale}[{rows}]"
    if b.size <= 6:
        return "[" + " ; ".join(" ".join(fmt_number(v) for v in row) for row in b) + "]"
    return f"[{b.shape[0]} × {b.shape[1]} numbers]"


def structure(m: np.ndarray, whole: bool, input_name: str = "the input", weights: str | None = None,
              op: str | None = None) -> str:
    """One line saying what pattern J has, read off the matrix itself (the block shown, if not whole), naming
    only what the node has: its ``op``, the input J is taken with respect to (``input_name``, as the program
    names it: ``W``) and ``weights``, the operand whose numbers J's blocks are where the op says so (``x`` for
    the W of ``x @ W``). NOTE: issue 29: a mean's J was captioned "B ⊗ I₃ … the pattern of W in X @ W", a
    neighbour's words; tests/explorer/program/test_captions.py reads every primitive's caption on the op table."""
    named = f" ({op})" if op else ""
    m = np.nan_to_num(np.asarray(m, dtype=np.float64), nan=1.0)
    rows, cols = m.shape
    where = "" if whole else " (in the block shown)"
    nonzero = int(np.count_nonzero(m))
    if op in kinks.CUTS:  # J = 0 by its rule, while finite differences of its forward see the identity
        return f"All zero{where}, by its rule: {kinks.KINKS[op][1]}."
    if nonzero == 0:
        return f"All zero{where}: no output element changes with this input here."
    if rows == 1 and cols == 1:
        return "One number: the local derivative; the VJP multiplies G by it."
    if rows == cols and not np.any(m - np.diag(np.diag(m))):
        return (f"Diagonal{where}: output element i depends on input element i only (elementwise), so the VJP "
                "multiplies G by the diagonal, element by element, and never builds J.")
    ones = bool(np.isin(m, (0.0, 1.0)).all())
    per_row = np.count_nonzero(m, axis=1)
    per_col = np.count_nonzero(m, axis=0)
    if per_row.max() == 1 and per_col.max() > 1 and cols < rows:
        k = int(per_col.max())
        feeds = "is copied into" if ones else "feeds"
        return (f"One entry per row{where}: each input element {feeds} up to {k} outputs (broadcast), so "
                f"its grad sums those rows of G{'' if ones else ' ⊙ J'}: undoing broadcasting adds them up.")
    if ones and rows == cols and (per_row == 1).all() and (per_col == 1).all():
        return (f"A permutation{where}: 0/1 with one 1 in every row and column; each output element is one input "
                f"element moved{named}, and the VJP moves G back the other way.")
    if ones and per_row.max() <= 1 and per_col.max() <= 1:
        return f"0/1, at most one 1 per row and column{where}: the op only moves elements, and the VJP moves G back."
    if rows == 1:
        if np.allclose(m, m[0, 0]):
            return (f"One row, every entry {fmt_number(m[0, 0])}: the output takes every input element alike"
                    f"{named}.")
        return "One row: the output's sensitivity to each input element (a scalar output's gradient is this row)."
    blocks = _block_diagonal(m)
    if blocks:
        n, br, bc = blocks
        dense = " dense" if all(np.all(m[i * br:(i + 1) * br, i * bc:(i + 1) * bc]) for i in range(n)) else ""
        return (f"Block-diagonal{where}: {n}{dense} blocks of {br} × {bc}; each group of outputs depends only on its "
                f"own group of {input_name}'s elements{named}.")
    p = _kron_identity(m)
    if p:
        identity = f"I{p}".translate(_SUBSCRIPTS)
        if weights:  # x @ W seen from W: J's blocks are x's numbers
            return (f"Blocks of scaled identities: J = {weights} ⊗ {identity}{where}. Output element (i, j) sees "
                    f"{input_name}[k, j] only, weighted by {weights}[i, k].")
        return f"Blocks of scaled identities: J = {_kron_factor(m[::p, ::p])} ⊗ {identity}{where}{named}."
    if nonzero == m.size:
        return (f"Dense{where}: every output element depends on every input element; reverse mode still never "
                "forms these numbers.")
    return f"Sparse{where}: {nonzero:,} of {m.size:,} entries are not zero."


# ----------------------------------------------------------------------------- the view's data


def view_data(jac: NodeJacobian, title: str, inputs: list[tuple[str, str]], out_name: str) -> dict:
    """JSON-ready data for one node's Jacobian view. ``title`` names the node (``y = softmax``), ``inputs`` each
    argument as (label, slot letter or ''), ``out_name`` the output's label (``y``, ``add #3``)."""
    sections = []
    for j in jac.inputs:
        max_error = j.max_error
        sections.append({
            "slot": j.slot,
            "label": inputs[j.slot][0],
            "slot_name": inputs[j.slot][1],
            "shape": list(j.shape),
            "shape_text": shape_text(j.shape),
            "rows": j.rows,
            "cols": j.cols,
            "shown_rows": j.shown_rows,
            "shown_cols": j.shown_cols,
            "matrix": json_numbers(j.matrix),
            "numeric": json_numbers(j.numeric) if j.matrix.size <= NUMERIC_CELLS else None,
            "numeric_error": finite_or_none(j.max_numeric_error),
            "numeric_ok": j.matches_numeric(),
            "vjp": _full(j.vjp, j.shown_cols),
            "gtj": None if j.gtj is None else _full(j.gtj, j.shown_cols),
            "max_error": finite_or_none(max_error),
            "structure": structure(j.matrix, j.whole, inputs[j.slot][0], _weights(jac.op, j.slot, inputs), jac.op),
        })
    errors = [s["max_error"] for s in sections if s["max_error"] is not None]
    return {
        "title": title,
        "op": jac.op,
        "out": out_name,
        "out_shape": list(jac.out_shape),
        "out_shape_text": shape_text(jac.out_shape),
        "g": _full(jac.upstream, min(math.prod(jac.out_shape), LIMIT)),
        "inputs": sections,
        "constants": [inputs[k][0] for k in jac.constants],
        "entries": jac.entries,
        "operations": jac.operations,
        "max_error": max(errors) if errors else None,
        "limit": LIMIT,
    }


def _weights(op: str, slot: int, inputs: list[tuple[str, str]]) -> str | None:
    """The operand whose numbers weight J's blocks, where the op says which: x for the W of ``x @ W``."""
    if op == "matmul" and slot == 1 and len(inputs) == 2:
        return inputs[0][0]
    return None


def _labels(graph, node) -> tuple[str, list[tuple[str, str]], str]:
    """The node's heading, each argument's (label, slot letter or ''), and the output's name."""
    slots = slot_names(node)
    names = []
    for position, parent in enumerate(node.parents):
        slot = slots[position] if len(node.parents) > 1 and position < len(slots) else ""
        names.append((graph_names.node_label(graph.nodes[parent]), slot))
    return graph_names.node_heading(node), names, graph_names.node_label(node)


def _run(text: str, poked: poke.Poked):
    """(graph, tensors by node id) of the program run with its poked values, backward() done."""

    program = compile_program(text)
    result = program.run(inputs=poke.resolve(program, poked))
    if result.output.requires_grad:
        result.output.backward()
    return trace(result.output, uses=result.uses), order(result.output, result.uses)


def view_limit(tensor) -> int:
    """The block of J (rows and columns, at most LIMIT) a node's view can afford, predicted from its shapes and
    its VJP's work before any row is built: its rows take shown rows × the input's size numbers and a VJP
    each, its central differences the output's size × shown columns and two forwards each (about a VJP's
    work). NOTE: at LIMIT a long 1-D input made rows of 64 × 1,000,000 and columns of 1,000,000 × 64 numbers:
    the Stepper of `x = randn(1000000)`, `y = x.relu().sum()` took 1.1 GB and 3.3 s, past one evaluation's
    memory, before it could show a step."""
    largest = max(tensor.size, *(p.size for p in tensor.parents), 1)  # 1: an empty tensor has no rows to show
    g = tensor.grad if tensor.grad is not None else np.ones(tensor.shape)
    _, operations = counted_vjp(tensor, g)
    per_row = max(operations, tensor.size, 1)
    return int(max(1, min(LIMIT, VIEW_ENTRIES // largest, VIEW_WORK // (3 * per_row))))


def graph_node_view(graph, tensors, node_id: int) -> dict | None:
    """The Jacobian view of node ``node_id`` of a recorded ``graph`` whose tensors are ``tensors`` (None for a leaf or
    a node without grad): node_jacobian's for a program, the Stepper's walk of a second backward for its graph."""
    tensor = tensors[node_id]
    if tensor.is_leaf or not tensor.requires_grad:
        return None
    title, names, out_name = _labels(graph, graph.nodes[node_id])
    return view_data(jacobian(tensor, limit=view_limit(tensor)), title, names, out_name)


def node_jacobian(text: str, poked: poke.Poked, node_id: int) -> dict | None:
    """The Jacobian view of node ``node_id`` (a trace id) of the program run with ``poked``; None for a leaf or
    a node without grad. Upstream g is the node's grad from backward() (seeded with ones)."""
    graph, tensors = _run(text, poked)
    if not 0 <= node_id < len(tensors):
        return None
    return graph_node_view(graph, tensors, node_id)


def step_jacobians(text: str, poked: poke.Poked, only: tuple = (), budget: int = STEP_BUDGET) -> dict:
    """{node id (str): Jacobian view} for the nodes whose VJP the backward pass runs, in the order it runs them,
    until their shown entries would pass ``budget`` (the rest: {"later": True}, asked for one by one by
    listing them in ``only``, which then limits the answer to those nodes)."""
    graph, tensors = _run(text, poked)
    return _step_views(graph, tensors, only, budget)


def budgeted_views(graph, result) -> dict:
    """step_jacobians' views within STEP_BUDGET for a program's run ``result`` (language's Result: backward() done;
    ``graph`` its trace)."""

    return _step_views(graph, order(result.output, result.uses), (), STEP_BUDGET)


def _step_views(graph, tensors, only: tuple, budget: int) -> dict:
    views: dict = {}
    spent = 0
    for node_id in reversed(range(len(tensors))):
        tensor = tensors[node_id]
        if tensor.is_leaf or not tensor.requires_grad or only and node_id not in only:
            continue
        shown = sum(min(tensor.size, LIMIT) * min(p.size, LIMIT) for p in tensor.parents if p.requires_grad)
        if not only and spent + shown > budget:
            views[str(node_id)] = {"later": True}
            continue
        spent += shown
        views[str(node_id)] = graph_node_view(graph, tensors, node_id)
    return views
