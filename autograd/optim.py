"""Optimisers with PyTorch's update rules: SGD (momentum, Nesterov, weight decay), Adam, AdamW."""

import numpy as np


class Optimizer:
    def __init__(self, params, lr):
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        if lr < 0:
            raise ValueError(f"learning rate must be >= 0, got {lr}")
        self.lr = lr
        self.state = [dict() for _ in self.params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        for p, state in zip(self.params, self.state):
            if p.grad is not None:
                self._update(p, p.grad, state)

    def _update(self, p, grad, state):
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

    def _update(self, p, grad, state):
        if self.weight_decay:
            grad = grad + self.weight_decay * p.data
        if self.momentum:
            buf = state.get("momentum")
            if buf is None:
                buf = np.array(grad, copy=True)
            else:
                buf = self.momentum * buf + (1 - self.dampening) * grad
            state["momentum"] = buf
            grad = grad + self.momentum * buf if self.nesterov else buf
        p.data -= self.lr * grad


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; weight_decay is L2 added to the gradient."""

    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
        super().__init__(params, lr)
        self.betas = tuple(betas)
        self.eps = eps
        self.weight_decay = weight_decay

    def _update(self, p, grad, state):
        beta1, beta2 = self.betas
        if self.weight_decay:
            if self.decoupled:
                p.data *= 1 - self.lr * self.weight_decay
            else:
                grad = grad + self.weight_decay * p.data
        t = state.get("step", 0) + 1
        m = state.get("m", 0.0) * beta1 + (1 - beta1) * grad
        v = state.get("v", 0.0) * beta2 + (1 - beta2) * grad * grad
        state.update(step=t, m=m, v=v)
        step_size = self.lr / (1 - beta1**t)
        denom = np.sqrt(v) / np.sqrt(1 - beta2**t) + self.eps
        p.data -= step_size * m / denom


class AdamW(Adam):
    """Adam with decoupled weight decay: p ← p·(1 − lr·wd) before the Adam step."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
