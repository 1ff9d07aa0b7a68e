"""Which learner a session is: a key of their browser, the same in every tab, reload and server process."""

from __future__ import annotations

import binascii
import hashlib
import secrets

import streamlit as st

from explorer import keys as page_keys

XSRF_COOKIE = "_streamlit_xsrf"


def learner_key() -> str:
    """A key of the browser this session runs in, for the run store's shares and ownership.

    NOTE: Streamlit gives every browser an XSRF cookie whose token (16 random bytes, masked anew in
    each response) it keeps for the cookie's life, in every server process; the key is a hash of
    that token, so the store never holds the secret. Without the cookie (XSRF protection off,
    AppTest) the session is its own learner.
    """
    ss = st.session_state
    if page_keys.LEARNER not in ss:
        token = _xsrf_token(st.context.cookies.get(XSRF_COOKIE, ""))
        ss[page_keys.LEARNER] = hashlib.sha256(b"learner:" + token).hexdigest()[:24] if token else secrets.token_hex(12)
    return ss[page_keys.LEARNER]


def _xsrf_token(cookie: str) -> bytes:
    """The token inside a version-2 XSRF cookie (``2|mask|masked token|time``), b'' if it is not one."""
    parts = cookie.strip("\"'").split("|")
    if len(parts) != 4 or parts[0] != "2":
        return b""
    try:
        mask, masked = binascii.a2b_hex(parts[1]), binascii.a2b_hex(parts[2])
    except (binascii.Error, ValueError):
        return b""
    if len(mask) != 4 or not masked:
        return b""
    return bytes(b ^ mask[i % 4] for i, b in enumerate(masked))
