"""The expression language's tests (language/, autograd.expr)."""
