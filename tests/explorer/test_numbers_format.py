"""The one number format: explorer.numbers (fmt_number, fmt_percent, ticks) against the shared
table tests/support/number_format.json, and components/frontend/web/format.js against the same table in Node
(`node --test`)."""

import json
import math
import subprocess

import numpy as np
import pytest

from components.common.assets import CODE_DIR
from explorer.numbers import finite_or_none, fmt_number, fmt_percent, ticks
from tests.support.helpers import ROOT, node_or_skip

TABLE = json.loads((ROOT / "tests" / "support" / "number_format.json").read_text(encoding="utf-8"))
SPECIAL = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan, "-0": -0.0}


def value(v):
    return SPECIAL[v] if isinstance(v, str) else v


def test_the_table_covers_every_edge():
    assert len(TABLE["number"]) + len(TABLE["percent"]) + len(TABLE["ticks"]) >= 60
    for special in SPECIAL:
        assert any(row[0] == special for row in TABLE["number"]), special
        assert any(row[0] == special for row in TABLE["percent"]), special


@pytest.mark.parametrize("row", TABLE["number"], ids=[str(r[0]) for r in TABLE["number"]])
def test_fmt_number(row):
    assert fmt_number(value(row[0])) == row[1]


@pytest.mark.parametrize("row", TABLE["percent"], ids=[str(r[0]) for r in TABLE["percent"]])
def test_fmt_percent(row):
    assert fmt_percent(value(row[0])) == row[1]


@pytest.mark.parametrize("row", TABLE["ticks"], ids=[f"{r[0]}..{r[1]}/{r[2]}" for r in TABLE["ticks"]])
def test_ticks(row):
    lo, hi, count, expected = row[:4]
    got = ticks(value(lo), value(hi), count)
    assert got == expected
    assert all(math.copysign(1.0, t) > 0 or t != 0 for t in got)  # no -0 tick
    assert len(got) <= max(count, 1) + 1 or abs(value(lo)) > 1e307  # at most count + 1 (but at the doubles' ends)


def test_every_exact_tie_rounds_to_even():
    """n + 0.5 for n = 1000…9999 are exact doubles: the even neighbour is kept (Python's own formatting)."""
    for n in range(1000, 10000):
        kept = n if n % 2 == 0 else n + 1
        assert fmt_number(n + 0.5) == ("1e4" if kept == 10000 else str(kept))


def test_numpy_scalars_and_integers():
    assert fmt_number(np.float32(0.1)) == "0.1"
    assert fmt_number(np.int64(12345)) == "1.234e4"
    assert fmt_number(7) == "7"


def test_finite_or_none_keeps_full_precision_and_drops_what_json_cannot_say():
    assert finite_or_none(0.1 + 0.2) == 0.30000000000000004 and type(finite_or_none(np.float32(2.5))) is float
    assert finite_or_none(np.int64(3)) == 3.0
    assert [finite_or_none(v) for v in (math.nan, math.inf, -math.inf, None)] == [None] * 4


def test_the_browser_twin_agrees_on_random_doubles():
    """Beyond the table: 4000 seeded doubles (any bit pattern, and the usual magnitudes) and ranges print and tick
    the same in Node as here."""
    node = node_or_skip("the browser twin's comparison")  # the table itself runs in Node in tests/js/test_js.py
    rng = np.random.default_rng(20)
    bits = rng.integers(0, 2**63, size=1000, dtype=np.int64).view(np.float64)
    usual = rng.standard_normal(1000) * 10.0 ** rng.uniform(-6, 6, 1000)
    ties = (rng.integers(1000, 10000, 1000) + 0.5) * 10.0 ** rng.integers(-3, 4, 1000)
    values = [float(v) for v in np.concatenate([bits, usual, ties, usual / 100]) if math.isfinite(v)]
    ranges = [(float(a), float(b), int(c)) for a, b, c in zip(usual[:300], usual[300:600], rng.integers(1, 12, 300),
                                                              strict=True)]
    script = (
        f"import({json.dumps((CODE_DIR / 'web' / 'format.js').as_uri())}).then((f) => {{\n"
        "  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "  console.log(JSON.stringify({number: input.values.map(f.formatNumber),\n"
        "    percent: input.values.map(f.formatPercent), ticks: input.ranges.map((r) => f.ticks(...r))}));\n"
        "});"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps({"values": values, "ranges": ranges}),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["number"] == [fmt_number(v) for v in values]
    assert got["percent"] == [fmt_percent(v) for v in values]
    assert got["ticks"] == [ticks(*r) for r in ranges]
