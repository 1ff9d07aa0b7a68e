"""Words every room shares: how many of a thing, text safe for Markdown, a refused value quoted back short."""

from __future__ import annotations

import re


def counted(n: int, noun: str) -> str:
    """``1 tensor``, ``35 tensors``, ``0 edges``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


_MARKDOWN = re.compile(r"([\\*_\[\]<>$~#|])")


def markdown_safe(message: str) -> str:
    """A message for st.error and friends, which render Markdown: characters that would format
    (``__class__`` turning bold, ``my_file.csv`` italic, ``$x$`` LaTeX) are escaped outside its
    `code spans`, which the messages use on purpose. Unpaired backticks are escaped too."""
    parts = message.split("`")
    if len(parts) % 2 == 0:
        return _MARKDOWN.sub(r"\\\1", message).replace("`", "\\`")
    return "`".join(part if i % 2 else _MARKDOWN.sub(r"\\\1", part) for i, part in enumerate(parts))


URL_ECHO = 40  # characters of a refused URL value quoted back in a warning


def clip_text(text: str, limit: int = URL_ECHO) -> str:
    """`text` cut to `limit` characters with an ellipsis: a warning never echoes a huge value."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
