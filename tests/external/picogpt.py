"""GPT-2 forward pass in NumPy from jaymody/picoGPT, gpt2.py (MIT), copied as-is
(generate/main dropped).  Test points use tiny random weights."""
import numpy as np

from tests.external import Case


# Origin: jaymody/picoGPT, gpt2.py, gelu (MIT)
def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


# Origin: jaymody/picoGPT, gpt2.py, softmax (MIT)
def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


# Origin: jaymody/picoGPT, gpt2.py, layer_norm (MIT)
def layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)  # normalize x to have mean=0 and var=1 over last axis
    return g * x + b  # scale and offset with gamma/beta params


# Origin: jaymody/picoGPT, gpt2.py, linear (MIT)
def linear(x, w, b):  # [m, in], [in, out], [out] -> [m, out]
    return x @ w + b


# Origin: jaymody/picoGPT, gpt2.py, ffn (MIT)
def ffn(x, c_fc, c_proj):  # [n_seq, n_embd] -> [n_seq, n_embd]
    # project up
    a = gelu(linear(x, **c_fc))  # [n_seq, n_embd] -> [n_seq, 4*n_embd]

    # project back down
    x = linear(a, **c_proj)  # [n_seq, 4*n_embd] -> [n_seq, n_embd]

    return x


# Origin: jaymody/picoGPT, gpt2.py, attention (MIT)
def attention(q, k, v, mask):  # [n_q, d_k], [n_k, d_k], [n_k, d_v], [n_q, n_k] -> [n_q, d_v]
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


# Origin: jaymody/picoGPT, gpt2.py, mha (MIT)
def mha(x, c_attn, c_proj, n_head):  # [n_seq, n_embd] -> [n_seq, n_embd]
    # qkv projection
    x = linear(x, **c_attn)  # [n_seq, n_embd] -> [n_seq, 3*n_embd]

    # split into qkv
    qkv = np.split(x, 3, axis=-1)  # [n_seq, 3*n_embd] -> [3, n_seq, n_embd]

    # split into heads
    qkv_heads = list(map(lambda x: np.split(x, n_head, axis=-1), qkv))  # [3, n_seq, n_embd] -> [3, n_head, n_seq, n_embd/n_head]

    # causal mask to hide future inputs from being attended to
    causal_mask = (1 - np.tri(x.shape[0])) * -1e10  # [n_seq, n_seq]

    # perform attention over each head
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]  # [3, n_head, n_seq, n_embd/n_head] -> [n_head, n_seq, n_embd/n_head]

    # merge heads
    x = np.hstack(out_heads)  # [n_head, n_seq, n_embd/n_head] -> [n_seq, n_embd]

    # out projection
    x = linear(x, **c_proj)  # [n_seq, n_embd] -> [n_seq, n_embd]

    return x


# Origin: jaymody/picoGPT, gpt2.py, transformer_block (MIT)
def transformer_block(x, mlp, attn, ln_1, ln_2, n_head):  # [n_seq, n_embd] -> [n_seq, n_embd]
    # multi-head causal self attention
    x = x + mha(layer_norm(x, **ln_1), **attn, n_head=n_head)  # [n_seq, n_embd] -> [n_seq, n_embd]

    # position-wise feed forward network
    x = x + ffn(layer_norm(x, **ln_2), **mlp)  # [n_seq, n_embd] -> [n_seq, n_embd]

    return x


# Origin: jaymody/picoGPT, gpt2.py, gpt2 (MIT)
def gpt2(inputs, wte, wpe, blocks, ln_f, n_head):  # [n_seq] -> [n_seq, n_vocab]
    # token + positional embeddings
    x = wte[inputs] + wpe[range(len(inputs))]  # [n_seq] -> [n_seq, n_embd]

    # forward pass through n_layer transformer blocks
    for block in blocks:
        x = transformer_block(x, **block, n_head=n_head)  # [n_seq, n_embd] -> [n_seq, n_embd]

    # projection to vocab
    x = layer_norm(x, **ln_f)  # [n_seq, n_embd] -> [n_seq, n_embd]
    return x @ wte.T  # [n_seq, n_embd] -> [n_seq, n_vocab]


# ---- test points (ours): tiny random GPT-2, n_embd=4, n_head=2, n_seq=3, n_vocab=7
E, S, V = 4, 3, 7


def _lin(r, n_in, n_out):
    return {"w": r.normal(0, 0.4, (n_in, n_out)), "b": r.normal(0, 0.1, n_out)}


def _ln(r):
    return {"g": 1 + 0.1 * r.normal(size=E), "b": 0.1 * r.normal(size=E)}


def _block(r):
    return {"mlp": {"c_fc": _lin(r, E, 4 * E), "c_proj": _lin(r, 4 * E, E)},
            "attn": {"c_attn": _lin(r, E, 3 * E), "c_proj": _lin(r, E, E)},
            "ln_1": _ln(r), "ln_2": _ln(r)}


def _x(seed):
    return np.random.default_rng(seed).normal(size=(S, E))


def _block_args():
    r = np.random.default_rng(95)
    b = _block(r)
    return (r.normal(size=(S, E)), b["mlp"], b["attn"], b["ln_1"], b["ln_2"], 2)


def _gpt2_args():
    r = np.random.default_rng(96)
    return ([1, 4, 2], r.normal(0, 0.5, (V, E)), r.normal(0, 0.1, (5, E)), [_block(r)], _ln(r), 2)


def _attention_args():
    r = np.random.default_rng(93)
    return (r.normal(size=(S, 2)), r.normal(size=(S, 2)), r.normal(size=(S, 2)), (1 - np.tri(S)) * -30.0)


_T = ("picogpt", "numpy", "ml")
CASES = [
    Case(gelu, lambda: (_x(90),), tags=_T),
    Case(softmax, lambda: (_x(91),), tags=_T + ("max", "keepdims")),
    Case(layer_norm, lambda: (_x(92), *_ln(np.random.default_rng(92)).values()), tags=_T + ("var",)),
    Case(linear, lambda: (_x(97), *_lin(np.random.default_rng(97), E, 5).values()), tags=_T + ("matmul",)),
    Case(ffn, lambda: (_x(98), _lin(np.random.default_rng(98), E, 4 * E), _lin(np.random.default_rng(99), 4 * E, E)),
         tags=_T + ("dict_args", "double_star")),
    Case(attention, _attention_args, tags=_T + ("matmul", "transpose")),
    Case(mha, lambda: (_x(94), _lin(np.random.default_rng(94), E, 3 * E), _lin(np.random.default_rng(95), E, E), 2),
         tags=_T + ("split", "map_lambda", "hstack", "zip_star")),
    Case(transformer_block, _block_args, tags=_T + ("nested_dicts",)),
    Case(gpt2, _gpt2_args, tags=_T + ("fancy_index", "nested_dicts", "list_of_dicts")),
]
