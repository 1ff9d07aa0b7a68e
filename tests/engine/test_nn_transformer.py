"""The transformer's parts without PyTorch: every case of tests/support/nn_cases.py against central differences
in float64 (grads of inputs and of every parameter), and what the masks, dropout, train()/eval() and
clip_grad_norm_ promise, worked out by hand. tests/engine/test_nn_torch.py is the twin against PyTorch.
"""

import numpy as np
import pytest

import autograd.functional as F
from autograd import Parameter, Tensor, nn
from autograd.gradcheck import numerical_vjp
from tests.support.nn_cases import CASES, CAUSAL, IDS, OURS, PADDING, fill, outputs


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_grads_match_central_differences(case):
    module = None
    if case.build is not None:
        module = case.build(OURS)
        fill(module)
        if case.eval:
            module.eval()
    inputs = [Tensor(a.copy(), requires_grad=True) for a in case.inputs]
    leaves = inputs + ([p for _, p in module.named_parameters()] if module is not None else [])
    first = outputs(case.run(OURS, module, *inputs))
    rng = np.random.default_rng(1)
    cots = [rng.standard_normal(o.shape) for o in first]

    def loss(*_):
        return Tensor(sum(float(np.sum(o.data * c)) for o, c in zip(outputs(case.run(OURS, module, *inputs)), cots)))

    total = sum((o * c).sum() for o, c in zip(first, cots))
    total.backward()
    numeric = numerical_vjp(loss, leaves, np.array(1.0))
    names = [f"input {k}" for k in range(len(inputs))]
    names += [n for n, _ in module.named_parameters()] if module is not None else []
    for name, leaf, n in zip(names, leaves, numeric):
        assert leaf.grad is not None, f"{case.label}: no grad reached {name}"
        np.testing.assert_allclose(leaf.grad, n, rtol=1e-6, atol=1e-8, err_msg=f"{case.label}: grad of {name}")


# ---- masks ---------------------------------------------------------------------------------------------
def test_masked_pairs_get_exactly_zero_weight_and_pass_no_grad():
    rng = np.random.default_rng(0)
    attn = nn.MultiheadAttention(4, 2, batch_first=True, generator=1)
    x = Tensor(rng.standard_normal((2, 4, 4)), requires_grad=True)
    _, weights = attn(x, x, x, attn_mask=CAUSAL, key_padding_mask=PADDING, average_attn_weights=False)
    blocked = CAUSAL[None, None] | PADDING[:, None, None, :]
    assert np.all(weights.data[np.broadcast_to(blocked, weights.shape)] == 0)
    np.testing.assert_allclose(weights.data.sum(axis=-1), 1.0, rtol=1e-14)
    # the padded token (sequence 0, position 3) is a key no query sees, and the last query only: nothing else
    # depends on it, so nothing but its own output row sends grad into it
    out, _ = attn(x, x, x, attn_mask=CAUSAL, key_padding_mask=PADDING)
    out[0, :3].sum().backward()
    assert np.all(x.grad[0, 3] == 0) and np.any(x.grad[0, :3] != 0)


def test_causal_attention_never_looks_ahead():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((5, 3)) for _ in range(3))
    before = F.scaled_dot_product_attention(q, k, v, is_causal=True).data
    k2, v2 = k.copy(), v.copy()
    k2[3:], v2[3:] = 9.0, -9.0  # change the last two tokens only
    after = F.scaled_dot_product_attention(q, k2, v2, is_causal=True).data
    np.testing.assert_array_equal(before[:3], after[:3])
    assert not np.allclose(before[3:], after[3:])
    explicit = F.scaled_dot_product_attention(q, k, v, attn_mask=np.tril(np.ones((5, 5), dtype=bool))).data
    np.testing.assert_array_equal(before, explicit)


def test_attention_by_hand():
    # one query, two keys: scores q·k/√2 = (√2, 0), weights softmax, output the weighted values
    q, k, v = np.array([[1.0, 1.0]]), np.array([[1.0, 1.0], [1.0, -1.0]]), np.array([[2.0, 0.0], [0.0, 4.0]])
    w = np.exp([np.sqrt(2), 0.0])
    w /= w.sum()
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v).data, [w @ v], rtol=1e-14)


def test_bad_masks_and_arguments_say_what_is_wrong():
    attn = nn.MultiheadAttention(4, 2)
    x = Tensor(np.zeros((3, 1, 4)))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        attn(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match=r"2D attn_mask is \(2, 2\), but should be \(3, 3\)"):
        attn(x, x, x, attn_mask=np.zeros((2, 2), dtype=bool))
    with pytest.raises(AssertionError, match="only bool and floating types"):
        attn(x, x, x, attn_mask=np.zeros((3, 3), dtype=int))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(ValueError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(x, x, x, attn_mask=CAUSAL, is_causal=True)
    with pytest.raises(ValueError, match=r"normalized_shape \[3\] does not match"):
        F.layer_norm(np.zeros((2, 4)), (3,))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


# ---- normalisation by hand -------------------------------------------------------------------------------
def test_layer_norm_and_rms_norm_by_hand():
    x = np.array([[1.0, 2.0, 4.0, 7.0]])
    mean, var = 3.5, np.mean((x - 3.5) ** 2)
    np.testing.assert_allclose(nn.LayerNorm(4)(Tensor(x)).data, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-14)
    rms = nn.RMSNorm(4)(Tensor(x)).data
    np.testing.assert_allclose(rms, x / np.sqrt(np.mean(x**2) + np.finfo(float).eps), rtol=1e-14)
    y = nn.LayerNorm(4)(Tensor(np.random.default_rng(0).standard_normal((3, 4)))).data
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-15)
    np.testing.assert_allclose(y.var(axis=-1), 1, rtol=1e-3)  # var / (var + eps)


# ---- dropout, train() and eval() ---------------------------------------------------------------------------
def test_dropout_is_seeded_scaled_and_the_identity_in_eval():
    x = Tensor(np.ones((200, 50)), requires_grad=True)
    first, again = nn.Dropout(0.2, generator=7)(x), nn.Dropout(0.2, generator=7)(x)
    np.testing.assert_array_equal(first.data, again.data)
    assert set(np.unique(first.data)) == {0.0, 1.25}
    assert abs((first.data == 0).mean() - 0.2) < 0.01
    first.sum().backward()
    np.testing.assert_array_equal(x.grad, first.data)  # d(x·mask/(1−p))/dx = mask/(1−p), and x = 1
    shared = np.random.default_rng(3)
    a, b = nn.Dropout(0.5, generator=shared), nn.Dropout(0.5, generator=shared)
    assert not np.array_equal(a(x).data, b(x).data)  # one Generator, two draws
    drop = nn.Dropout(0.5).eval()
    assert drop(x) is x
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.9, training=False) is x
    assert not F.dropout(x, 1.0).data.any()


def test_train_and_eval_reach_every_submodule():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.5, generator=0)
    x = Tensor(np.random.default_rng(0).standard_normal((3, 2, 4)))
    modules = [layer, layer.self_attn, layer.dropout, layer.dropout1, layer.dropout2, layer.norm1]
    assert all(m.training for m in modules)
    assert not np.array_equal(layer(x).data, layer(x).data)  # fresh dropout masks each call
    layer.eval()
    assert not any(m.training for m in modules)
    np.testing.assert_array_equal(layer(x).data, layer(x).data)
    assert layer.train() is layer and all(m.training for m in modules)


def test_a_seeded_layer_repeats_and_its_state_dict_round_trips():
    a = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, generator=5)
    b = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, generator=5)
    for (name, p), (_, q) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(p, q, err_msg=name)
    c = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, generator=6)
    c.load_state_dict(a.state_dict())
    x = Tensor(np.random.default_rng(0).standard_normal((3, 2, 4)))
    np.testing.assert_array_equal(a.eval()(x).data, c.eval()(x).data)
    assert list(a.state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
        "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
    ]


def test_softmax_without_dim_takes_pytorchs_legacy_axis_and_warns():
    x = np.random.default_rng(0).standard_normal((2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = nn.Softmax()(x)
    np.testing.assert_allclose(out.data.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(nn.LogSoftmax(dim=0)(x).data, np.log(nn.Softmax(dim=0)(x).data), rtol=1e-12)


# ---- clip_grad_norm_ --------------------------------------------------------------------------------------
def test_clip_grad_norm_by_hand():
    a, b = Parameter(np.zeros(2)), Parameter(np.zeros(1))
    a.grad, b.grad = np.array([3.0, 0.0]), np.array([4.0])  # joint norm 5
    total = nn.utils.clip_grad_norm_([a, b], 1.0)
    assert isinstance(total, Tensor) and total.item() == 5.0
    np.testing.assert_allclose(np.concatenate([a.grad, b.grad]), np.array([3.0, 0.0, 4.0]) / (5 + 1e-6),
                               rtol=1e-15)
    assert nn.utils.clip_grad_norm_(a, 10.0).item() == 3.0 / (5 + 1e-6)  # below max_norm: no clipping
    np.testing.assert_allclose(a.grad, [3.0 / (5 + 1e-6), 0.0], rtol=1e-15)
    assert nn.utils.clip_grad_norm_([Parameter(np.zeros(3))], 1.0).item() == 0.0  # no grads at all
    a.grad = np.array([np.inf, 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([a], 1.0, error_if_nonfinite=True)


# ---- README's transformer block ------------------------------------------------------------------------------
def readme_block() -> str:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### A transformer block", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_block_trains_and_is_transformer_encoder_layer_with_norm_first():
    scope: dict = {"__name__": "readme_block"}
    exec(compile(readme_block(), "README.md", "exec"), scope)  # the project's own README, not user text
    losses, block = scope["losses"], scope["block"]
    assert losses[0] > 1.5 and losses[-1] < 0.1 * losses[0], losses
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=64, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True)
    ours = block.state_dict()
    renamed = {"self_attn": "attn", "linear1": "mlp.layers.0", "linear2": "mlp.layers.2"}
    layer.load_state_dict({key: ours[renamed.get(key.split(".")[0], key.split(".")[0]) + key[key.index("."):]]
                           for key in layer.state_dict()})
    x = Tensor(np.random.default_rng(0).standard_normal((2, 6, 16)))
    mask = scope["causal"]
    np.testing.assert_allclose(layer(x, src_mask=mask).data, block(x, mask).data, rtol=1e-12, atol=1e-12)


def test_attention_dropout_drops_weights_from_the_generator_and_only_in_train():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((2, 5, 3)) for _ in range(3))
    got = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, generator=11).data
    plain = F.scaled_dot_product_attention(q, k, v)
    weights = F.softmax(Tensor(q) @ Tensor(k).transpose(0, 2, 1) * (1 / np.sqrt(3)), axis=-1).data
    keep = np.random.default_rng(11).random(weights.shape) >= 0.4  # F.dropout's draw from the same seed
    np.testing.assert_allclose(got, (weights * keep / 0.6) @ v, rtol=1e-12)
    assert not np.allclose(got, plain.data)
    attn = nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True, generator=0)
    x = Tensor(rng.standard_normal((2, 3, 4)))
    _, w_train = attn(x, x, x, average_attn_weights=False)
    # in train() the weights returned are the dropped ones (as PyTorch returns them): some 0, the rest doubled
    assert np.any(w_train.data == 0) and not np.allclose(w_train.data.sum(axis=-1), 1.0)
    attn.eval()
    out_a, w_eval = attn(x, x, x)
    np.testing.assert_allclose(w_eval.data.sum(axis=-1), 1.0, rtol=1e-14)
    np.testing.assert_array_equal(out_a.data, attn(x, x, x)[0].data)


# ---- forward mode through the composites ------------------------------------------------------------------
@pytest.mark.parametrize("case", [c for c in CASES if c.build is None or c.label.startswith(("LayerNorm", "MHA ("))],
                         ids=lambda c: c.label)
def test_forward_mode_gives_the_same_jacobian_as_reverse_mode(case):
    # built from primitives, the composites have forward mode for free: J from n JVPs equals J from m VJPs
    from autograd.func import jacfwd, jacrev

    module = case.build(OURS) if case.build is not None else None
    if module is not None:
        fill(module)

    def f(*xs):
        return outputs(case.run(OURS, module, *xs))[0]

    nums = tuple(range(len(case.inputs)))
    xs = [Tensor(a.copy()) for a in case.inputs]
    for forward, reverse in zip(jacfwd(f, argnums=nums)(*xs), jacrev(f, argnums=nums)(*xs)):
        np.testing.assert_allclose(forward.data, reverse.data, rtol=1e-10, atol=1e-12, err_msg=case.label)


def test_a_stack_s_copies_start_equal_but_drop_out_apart():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.5, generator=3)
    stack = nn.TransformerEncoder(layer, 2)
    first, second = stack.layers
    for (name, a), (_, b) in zip(first.state_dict().items(), second.state_dict().items()):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert first.self_attn.in_proj_weight is not second.self_attn.in_proj_weight
    x = Tensor(np.ones((3, 2, 4)))
    again = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.5, generator=3), 2)
    np.testing.assert_array_equal(stack(x).data, again(x).data)  # seeded: the whole stack repeats
    assert not np.array_equal(first.dropout(x).data, second.dropout(x).data)
    assert second.dropout.generator is second.dropout1.generator is second.self_attn.generator
