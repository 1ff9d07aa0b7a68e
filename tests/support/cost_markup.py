"""A program too big to build the Jacobian of, and the data-* hooks of an element in a page's markup."""

from __future__ import annotations

import re

TOO_BIG = "x = randn(600)\nW = randn(500, 600)\ny = (W @ x).tanh()"


def hooks(markup: str, testid: str) -> dict[str, str]:
    """The data-* attributes of the element with this data-testid."""
    tag = re.search(rf'<div [^>]*data-testid="{testid}"[^>]*>', markup)
    assert tag, f"no {testid} root in the markup"
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', tag.group(0)))
