"""The benchmark compares like with like: each engine case computes what its hand-written NumPy twin does."""

import numpy as np

from benchmarks import cases


def test_chain_case_matches_numpy():
    impls = cases.chain_impls()  # asserts the gradients agree when it builds the case
    np.testing.assert_allclose(impls["engine"](), impls["numpy"]())


def test_mlp_cases_take_the_same_steps_as_numpy():
    for build in (cases.playground_impls, cases.large_impls):
        impls = build()  # one step each, compared parameter by parameter
        loss_engine, loss_numpy = impls["engine"](), impls["numpy"]()
        np.testing.assert_allclose(loss_engine.item(), loss_numpy, rtol=1e-9)


def test_deep_chain_case_is_correct():
    assert cases.deep_chain_seconds(1000) > 0
