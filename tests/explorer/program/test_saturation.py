"""explorer.program.saturation: the grad a program's softmax passes back as its logits are scaled, against the
program's own grads at scale 1 and the closed form s · p ⊙ (g − Σ g p), and the sentence it makes."""

import numpy as np
import pytest

from autograd.expr import evaluate
from explorer.program import presets, saturation

HEAD = presets.program("causal attention head")


def by_hand(site, scale):
    z = np.where(site.mask, site.fill, scale * site.logits) if site.mask is not None else scale * site.logits
    e = np.exp(z - z.max(axis=site.axis, keepdims=True))
    p = e / e.sum(axis=site.axis, keepdims=True)
    g = site.upstream
    return scale * np.where(site.mask, 0.0, p * (g - (g * p).sum(axis=site.axis, keepdims=True))), p


def test_the_site_is_the_head_s_softmax_with_its_mask_and_the_scores_under_it():
    site = saturation.softmax_site(HEAD)
    r = evaluate(HEAD)
    r.output.backward()
    np.testing.assert_array_equal(site.logits, r.variables["scores"].data)
    np.testing.assert_array_equal(site.mask, r.variables["mask"].data)
    assert site.fill == -1e9 and site.axis == -1
    np.testing.assert_array_equal(site.upstream, r.variables["p"].grad)
    # at scale 1 the grad it reports is the program's own grad of the scores
    assert saturation.at_scale(site, 1.0).grad_norm == pytest.approx(np.linalg.norm(r.variables["scores"].grad),
                                                                     rel=1e-12)


@pytest.mark.parametrize("scale", [0.125, 1.0, 3.0, 40.0])
def test_each_point_is_the_closed_form(scale):
    site = saturation.softmax_site(HEAD)
    grad, p = by_hand(site, scale)
    point = saturation.at_scale(site, scale)
    assert point.grad_norm == pytest.approx(np.linalg.norm(grad), rel=1e-10, abs=1e-300)
    rows = (~site.mask).sum(axis=-1) >= 2  # the first token sees itself only: one-hot at every scale, left out
    assert point.peak == pytest.approx(p.max(axis=-1)[rows].mean(), rel=1e-12)
    assert point.uniform == pytest.approx(np.mean([1 / 2, 1 / 3, 1 / 4]), rel=1e-12)


def test_a_saturated_head_passes_almost_nothing_back_and_the_sentence_says_so():
    site = saturation.softmax_site(presets.program("attention scores"))
    points = saturation.curve(site)
    by_scale = {p.scale: p for p in points}
    most = max(p.grad_norm for p in points)
    assert by_scale[128.0].peak > 0.9999 and by_scale[128.0].grad_norm < 1e-6 * most
    words = saturation.sentence(by_scale[32.0], points)
    assert "saturated" in words and "almost nothing back" in words and "<0.01% of the 0.9079 at × 1" in words
    assert "nearly flat" in saturation.sentence(by_scale[0.125], points)
    assert "as the program is written" in saturation.sentence(by_scale[1.0], points)
    close = saturation.sentence(by_scale[8.0], points)  # peaked, yet still passing 70 % of scale 1's grad
    assert "close to saturated" in close and "down from 1.623 at × 4" in close


@pytest.mark.parametrize("name", ["attention scores", "causal attention head", "transformer training step"])
def test_every_preset_with_a_softmax_has_a_sentence_at_every_scale(name):
    site = saturation.softmax_site(presets.program(name))
    points = saturation.curve(site)
    assert [p.scale for p in points] == list(saturation.SCALES)
    for point in points:
        assert np.isfinite(point.grad_norm) and point.uniform <= point.peak <= 1.0
        assert saturation.sentence(point, points).startswith(f"At logits × {point.scale:g} softmax")


def test_programs_without_a_softmax_that_needs_grad_have_no_site():
    assert saturation.softmax_site(presets.program("micrograd")) is None
    assert saturation.softmax_site(presets.program("softmax cross-entropy")) is None  # log_softmax is not softmax
    assert saturation.softmax_site("x = tensor([1.0, 2.0], requires_grad=False)\ny = softmax(x)") is None


def test_a_softmax_over_every_element_is_the_softmax_of_its_logits_in_one_row():
    """softmax(axis=None) (the sweep's generated program, seed 5104, raised TypeError on int(None)): the same curve as
    the softmax over the last axis of the logits laid out in one row."""
    every = "M = randn(3, 4)\nout = (M.softmax(axis=None) * M).sum()"
    row = "M = randn(3, 4)\nout = (M.reshape(1, -1).softmax(axis=-1) * M.reshape(1, -1)).sum()"
    got, want = saturation.panel_data(every, (), 2.0), saturation.panel_data(row, (), 2.0)
    np.testing.assert_allclose(got["norms"], want["norms"], rtol=1e-12)
    np.testing.assert_allclose(got["peaks"], want["peaks"], rtol=1e-12)
    assert got["norm"] > 0 and got["sentence"].startswith("At logits × 2")
