"""The benchmark compares like with like: each engine case computes what its hand-written NumPy twin does."""

import numpy as np
import pytest

from benchmarks import cases, landscape


def test_chain_case_matches_numpy():
    impls = cases.chain_impls()  # asserts the gradients agree when it builds the case
    np.testing.assert_allclose(impls["engine"](), impls["numpy"]())


def test_chain_modes_compute_the_same_directional_derivative():
    impls = cases.chain_modes_impls()  # asserts J·v = (1ᵀJ)·v across the four when it builds the case
    values = [fn() for fn in impls.values()]
    np.testing.assert_allclose(values, values[0], rtol=1e-12)
    assert {"engine JVP", "engine VJP", "numpy JVP", "numpy VJP"} <= set(impls)


@pytest.mark.parametrize("build", [
    lambda: cases.playground_impls("sgd"),
    lambda: cases.playground_impls("adam"),
    lambda: cases.playground_impls("adam", loss="bce"),
    cases.large_impls,
], ids=["playground-sgd-mse", "playground-adam-mse", "playground-adam-bce", "large"])
def test_mlp_cases_take_the_same_steps_as_numpy(build):
    impls = build()  # one step each, compared parameter by parameter
    for _ in range(3):  # and the next steps' losses (Adam's moments and step count included)
        loss_engine, loss_numpy = impls["engine"](), impls["numpy"]()
        np.testing.assert_allclose(loss_engine.item(), loss_numpy, rtol=1e-9)


def test_deep_chain_case_is_correct():
    assert cases.deep_chain_seconds(1000) > 0


def test_presentation_lines_run():
    # the cases the benchmark prints after the engine's: each must still call what it measures
    lines = cases.presentation_lines(quick=True)
    assert any(line.startswith("live playground, server side") for line in lines)


def test_transformer_parts_compare_the_composite_with_its_fused_twin():
    from benchmarks import transformer_parts

    for impls in (transformer_parts.layer_norm_impls(rows=6, width=5), transformer_parts.attention_impls(2, 2, 5, 3)):
        for ours, fused in zip(impls["composite"](), impls["fused"]()):  # the build asserted it too
            np.testing.assert_allclose(ours, fused, rtol=1e-9, atol=1e-12)
    assert transformer_parts.lines(rounds=1)[0].split() == ["case", "composite", "fused", "ratio"]


@pytest.mark.slow  # ~15 s on a loaded machine: the loops it compares with, and the full Hessian
def test_landscape_benchmark_runs_and_compares_like_with_like():
    lines = landscape.lines(repeat=1)  # asserts the batched losses and per-example gradients equal the loops'
    assert any(line.startswith("slice 25 x 25, batched") for line in lines)
    assert any(line.startswith("λmax by power iteration") for line in lines)
