"""The Explorer's softmax saturation panel through AppTest: shown for a program with a softmax (the causal attention
head), not for one without; its slider scales the logits and the sentence follows the engine's numbers."""

from explorer.program import keys, presets, saturation
from tests.support.apptest import EXPLORER, no_exception, open_page

HEAD = presets.PRESETS["causal attention head"][1]


def _sentences(at) -> list[str]:
    return [m.value for m in at.markdown if "softmax" in m.value and "passes back" in m.value]


def test_the_slider_scales_the_logits_and_says_when_the_head_is_saturated():
    at = open_page(EXPLORER, {"program": HEAD})
    no_exception(at)
    slider = at.select_slider(key=keys.SATURATION_SCALE)
    assert slider.value == 1.0
    assert _sentences(at) == [saturation.panel_data(HEAD, (), 1.0)["sentence"]]
    slider.set_value(128.0).run()
    no_exception(at)
    (said,) = _sentences(at)
    assert "saturated" in said and "passes almost nothing back" in said
    assert said == saturation.panel_data(HEAD, (), 128.0)["sentence"]


def test_no_panel_without_a_softmax():
    at = open_page(EXPLORER, {"program": presets.PRESETS["micrograd"][1]})
    no_exception(at)
    assert not [s for s in at.select_slider if s.key == keys.SATURATION_SCALE]
