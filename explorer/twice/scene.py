"""The scene's numbers, the engine's own: the program run once, then ``backward()`` and ``zero_grad()`` called on its
graph in the order the learner asked (the graph is kept, as this engine keeps it), every tensor's grad read after.

    scene = replay(text, poked, ("backward", "backward"))   # every grad is now 2× one backward()'s
    scene.graph                                              # autograd.graph.Graph traced after the calls
    scene.since_clear                                        # backward() calls since the last zero_grad(): 2
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograd import no_grad
from autograd.graph import order, trace
from explorer.program import poke
from language import compile_program

BACKWARD, ZERO_GRAD = "backward", "zero_grad"
ACTIONS = (BACKWARD, ZERO_GRAD)
#: At most this many calls in one scene (each is a backward pass over the program).
MAX_CALLS = 12
START = (BACKWARD,)

PYTORCH = (
    "**What PyTorch does differently.** Its autograd frees the graph's saved tensors during `backward()`, so a second "
    "`loss.backward()` on the same graph raises *Trying to backward through the graph a second time* unless the "
    "first call passed `retain_graph=True`; this engine keeps every graph, so the second call just runs. The leaves' "
    "`.grad` accumulate in both (that is why a training loop calls `optimizer.zero_grad()` before each "
    "`backward()`). An intermediate tensor's `.grad` stays `None` in PyTorch unless you called `t.retain_grad()` "
    "before backward; here every intermediate keeps its grad (so the Explorer can show it), and it accumulates "
    "like a leaf's.")


@dataclass(frozen=True)
class Scene:
    graph: object  # autograd.graph.Graph traced after the calls (grads as the engine left them)
    once: dict  # node id -> one backward()'s grad (None where backward gives none)
    actions: tuple
    since_clear: int  # backward() calls since the last zero_grad() (or since the start)

    def ratio(self) -> int:
        """How many times one backward()'s grad each grad now holds."""
        return self.since_clear


def normal(actions) -> tuple:
    """The calls as a tuple of known names, at most MAX_CALLS, starting from START when empty."""
    kept = tuple(a for a in actions if a in ACTIONS)[:MAX_CALLS]
    return kept or START


def since_clear(actions: tuple) -> int:
    n = 0
    for a in actions:
        n = 0 if a == ZERO_GRAD else n + 1
    return n


def replay(text: str, poked: tuple = (), actions: tuple = START) -> Scene:
    """The program run once at ``poked``; then each of ``actions`` called on its output's graph (see the module)."""
    actions = normal(actions)
    program = compile_program(text)
    own = None
    if poked:
        with no_grad():
            own = program.run().inputs
    result = program.run(inputs=poke.resolve(program, poked, own) if poked else None)
    output = result.output
    tensors = order(output, result.uses)
    once = None
    for action in actions:
        if action == ZERO_GRAD:
            for t in tensors:
                t.zero_grad()
        elif output.requires_grad:
            output.backward()
            if once is None:
                once = [None if t.grad is None else np.array(t.grad) for t in tensors]
    if once is None:  # no backward yet since the start: one, on a copy of the run, for the comparison
        again = program.run(inputs=poke.resolve(program, poked, own) if poked else None)
        if again.output.requires_grad:
            again.output.backward()
        once = [None if t.grad is None else np.array(t.grad) for t in order(again.output, again.uses)]
    graph = trace(output, result.uses)
    return Scene(graph, dict(enumerate(once)), actions, since_clear(actions))


def said(scene: Scene) -> str:
    """What the scene shows now, in a sentence."""
    calls = " → ".join(f"{a}()" for a in scene.actions)
    n = scene.since_clear
    if n == 0:
        return (f"**{calls}**: zero_grad() cleared every grad (set to None, as PyTorch's `set_to_none=True` "
                "does): the boxes show —. Run backward() again.")
    if n == 1:
        return f"**{calls}**: every grad is one backward()'s, as the Stepper walked it."
    return (f"**{calls}**: backward() ran {n} times since the grads were last cleared, and each call *added* its "
            f"grads: every box, leaves and intermediates, holds {n}× one backward()'s. zero_grad() clears them.")
