"""Optimisers with PyTorch's update rules: SGD (momentum, Nesterov, weight decay), Adam, AdamW.

NOTE: the speed trick (PyTorch's "foreach"/fused idea, in NumPy). Each optimiser keeps its parameters'
data as views into one flat buffer per dtype, and its own state (momentum, Adam's moments) as flat
buffers of the same layout. A step gathers the gradients into one flat array and updates every
parameter with a handful of whole-buffer NumPy calls, instead of a handful per parameter tensor.
The same update function runs on slices of the buffers, parameter by parameter, when the parameters
are not all in step (some have no grad this time, as PyTorch skips them).

If code rebinds a parameter's data (`p.data = ...`, as Module.load_state_dict does), the next step
copies the new values into the buffer and makes `p.data` a view again; a copied or unpickled
optimiser rebuilds its views the same way.
"""

import math

import numpy as np


class _Group:
    """Parameters of one dtype, their data as views into `flat`, and flat state buffers of that layout."""

    def __init__(self, params, dtype):
        self.params = params
        self.shapes = [p.data.shape for p in params]
        bounds = np.cumsum([0] + [math.prod(s) for s in self.shapes])
        self.slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self.flat = np.empty(int(bounds[-1]), dtype=dtype)
        self.grad = np.empty_like(self.flat)
        self.buffers = {}  # state name -> flat array (created on first use)
        self.views = [None] * len(params)
        for i in range(len(params)):
            self._adopt(i)

    def _adopt(self, i):
        """Copies parameter i's current data into the buffer and makes its data a view of it."""
        p = self.params[i]
        data = np.asarray(p.data)
        if data.shape != self.shapes[i]:
            raise ValueError(
                f"a parameter of shape {self.shapes[i]} now holds data of shape {data.shape}; "
                "make a new optimiser for parameters that change shape"
            )
        view = self.flat[self.slices[i]].reshape(self.shapes[i])
        view[...] = data
        p.data = view
        self.views[i] = view

    def sync(self):
        """Makes every parameter's data a view into the buffer again, after code rebound it."""
        views = self.views
        if views and views[0].base is not self.flat:  # a copy or an unpickled optimiser: views are separate
            for i in range(len(views)):
                self._adopt(i)
            return
        for i, p in enumerate(self.params):
            if p.data is not views[i]:
                self._adopt(i)

    def buffer(self, name):
        """The flat state buffer `name`, zeros at first."""
        buf = self.buffers.get(name)
        if buf is None:
            buf = self.buffers[name] = np.zeros_like(self.flat)
        return buf

    def gather(self):
        """The flat gradient if every parameter has one, else None."""
        grads = []
        for p, shape in zip(self.params, self.shapes):
            g = p.grad
            if g is None:
                return None
            if type(g) is not np.ndarray or g.shape != shape:
                g = self.checked_grad(p, shape)
            grads.append(g.reshape(-1))
        np.concatenate(grads, out=self.grad, casting="same_kind")
        return self.grad

    @staticmethod
    def checked_grad(p, shape):
        """p.grad as an array of p's shape, or ValueError saying what is wrong."""
        g = np.asarray(p.grad)
        if g.shape != shape:
            raise ValueError(f"a parameter of shape {shape} has a grad of shape {g.shape}")
        return g


class Optimizer:
    """Base class: `step()` updates every parameter that has a grad; `zero_grad()` clears the grads.

    Subclasses define `_update(group, data, grad, step, index)`: the update, in place, of `data` (the
    whole flat buffer, or one parameter's slice of it: 1-D either way) from `grad` of the same shape,
    with state from `self._state(group, name, index)`, sliced alike (`index` is None for the whole
    buffer, else the parameter's number). `step` counts the updates of those parameters, from 1.
    """

    def __init__(self, params, lr):
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        if lr < 0:
            raise ValueError(f"learning rate must be >= 0, got {lr}")
        self.lr = lr
        self._groups = []
        for dtype in dict.fromkeys(p.data.dtype for p in self.params):
            self._groups.append(_Group([p for p in self.params if p.data.dtype == dtype], dtype))
        # Updates applied so far: one count for a group whose parameters are all in step (the common
        # case), else one per parameter (PyTorch counts per parameter, skipping one without a grad).
        self._steps = [0] * len(self._groups)

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        for k, group in enumerate(self._groups):
            group.sync()
            steps = self._steps[k]
            grad = group.gather()
            if grad is not None and type(steps) is int:
                self._steps[k] = steps + 1
                self._update(group, group.flat, grad, steps + 1, None)
                continue
            counts = [steps] * len(group.params) if type(steps) is int else steps
            for i, p in enumerate(group.params):  # some parameters are not in step: one at a time
                if p.grad is not None:
                    grad = group.checked_grad(p, group.shapes[i]).astype(group.flat.dtype, copy=False)
                    counts[i] += 1
                    self._update(group, group.flat[group.slices[i]], grad.reshape(-1), counts[i], i)
            self._steps[k] = counts[0] if len(set(counts)) == 1 else counts

    def state_dict(self):
        """Each parameter's state, as copies: {"state": {i: {"step": n, name: array of p's shape}}}.

        `i` is the parameter's position in `params`; parameters not yet updated have no entry
        (PyTorch's layout, with this optimiser's buffer names: SGD "momentum", Adam "m" and "v").
        """
        position = {id(p): i for i, p in enumerate(self.params)}
        state = {}
        for group, steps in zip(self._groups, self._steps):
            for j, p in enumerate(group.params):
                count = steps if type(steps) is int else steps[j]
                if count:
                    entry = {"step": count}
                    for name, buf in group.buffers.items():
                        entry[name] = buf[group.slices[j]].reshape(group.shapes[j]).copy()
                    state[position[id(p)]] = entry
        return {"state": state}

    def load_state_dict(self, state_dict):
        """Restores what `state_dict()` gave (from this optimiser or one over same-shaped parameters)."""
        state = state_dict["state"]
        position = {id(p): i for i, p in enumerate(self.params)}
        for k, group in enumerate(self._groups):
            counts = []
            for j, p in enumerate(group.params):
                entry = state.get(position[id(p)], {})
                counts.append(int(entry.get("step", 0)))
                for name, value in entry.items():
                    if name == "step":
                        continue
                    value = np.asarray(value)
                    if value.shape != group.shapes[j]:
                        raise ValueError(
                            f"load_state_dict: '{name}' of parameter {position[id(p)]} has shape {value.shape}, "
                            f"expected {group.shapes[j]}"
                        )
                    group.buffer(name)[group.slices[j]] = value.reshape(-1)
            self._steps[k] = counts[0] if len(set(counts)) == 1 else counts

    def _state(self, group, name, index):
        buf = group.buffer(name)
        return buf if index is None else buf[group.slices[index]]

    def _update(self, group, data, grad, step, index):
        raise NotImplementedError


class SGD(Optimizer):
    """p ← p − lr·v, with v the (Nesterov) momentum buffer of grad + weight_decay·p."""

    def __init__(self, params, lr, momentum=0, weight_decay=0, nesterov=False, dampening=0):
        super().__init__(params, lr)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and no dampening")
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.dampening = dampening

    def _update(self, group, data, grad, step, index):
        if self.weight_decay:
            grad = grad + self.weight_decay * data
        if self.momentum:
            buf = self._state(group, "momentum", index)
            if step == 1:
                buf[...] = grad
            else:
                buf *= self.momentum
                buf += (1 - self.dampening) * grad
            grad = grad + self.momentum * buf if self.nesterov else buf
        data -= self.lr * grad


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; weight_decay is L2 added to the gradient."""

    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
        super().__init__(params, lr)
        self.betas = tuple(betas)
        self.eps = eps
        self.weight_decay = weight_decay

    def _update(self, group, data, grad, step, index):
        beta1, beta2 = self.betas
        if self.weight_decay:
            if self.decoupled:
                data *= 1 - self.lr * self.weight_decay
            else:
                grad = grad + self.weight_decay * data
        m = self._state(group, "m", index)
        v = self._state(group, "v", index)
        m *= beta1
        m += (1 - beta1) * grad
        v *= beta2
        v += (1 - beta2) * grad * grad
        denom = np.sqrt(v)
        denom /= math.sqrt(1 - beta2**step)
        denom += self.eps
        update = np.divide(m, denom, out=denom)
        update *= self.lr / (1 - beta1**step)
        data -= update


class AdamW(Adam):
    """Adam with decoupled weight decay: p ← p·(1 − lr·wd) before the Adam step."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
