"""Times one training step of a mixture-of-experts model on one GPU, as one
rank of expert parallelism 8 computes it, for comparison with `trainplan
estimate` on the same layers.

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/moe_step.py OUT.json [--profile] [CASE ...]

A rank of ep 8 holds 128 / 8 = 16 of the layer's experts. With the tokens
spread evenly over the experts, as Megatron-Bridge's benchmarks force them
(docs/performance-summary.md), the all-to-all brings that rank tokens x
top-k routed copies each micro-batch, the same number it sends. So one GPU
with the 16 experts, routing each of its tokens to top-k of them in equal
shares, computes what the rank computes, the all-to-all aside. trainplan's
model of the same step is the layer with experts 16 and ep 1.

Each layer is what Megatron-Core builds for the model, written out in
PyTorch: RMSNorm; Q, K, V and output projections (with biases where the
model has them); rotary positions; causal attention with grouped key/value
heads through scaled_dot_product_attention, or FlexAttention over a sliding
window on the layers that have one; the router (a linear map to the 16
experts' logits and a softmax over the k taken, which are the equal shares
below, not its top k); the tokens permuted to
expert order and back by gathers, as Transformer Engine's fused permutation
(no atomic adds); each expert's W1 and W2 as one torch._grouped_mm each; the
gated activation; the outputs weighted and added back to their tokens. The
step around the layers (embedding, fp32 cross-entropy over the vocabulary,
fp32 main_grad, master weights and AdamW) is llama_step.py's.

Left out: gpt-oss's attention sinks (one more logit a head, folded into the
softmax) and Qwen3's norms of the queries and keys; both add element-wise
work per token that is small against the layer's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_step  # noqa: E402

# gpt-oss-120b (Hugging Face openai/gpt-oss-120b config.json): hidden 2,880,
# 64 query and 8 key/value heads of 64, experts of 2,880 with a clamped
# GeGLU and biases, top 4 of 128, a 128-token window on every other layer
# (the first of each pair), 201,088 tokens
GPT_OSS_EP8 = dict(hidden=2880, heads=64, kv_heads=8, head_dim=64, experts=16, topk=4, expert_ffn=2880,
                   vocab=201088, window=128, bias=True, activation="clamped_geglu")
# Qwen3-30B-A3B (Hugging Face Qwen/Qwen3-30B-A3B config.json): hidden 2,048,
# 32 query and 4 key/value heads of 128, experts of 768 with SwiGLU, top 8
# of 128, no window, no biases, 151,936 tokens
QWEN3_30B_EP8 = dict(hidden=2048, heads=32, kv_heads=4, head_dim=128, experts=16, topk=8, expert_ffn=768,
                     vocab=151936, window=0, bias=False, activation="swiglu")


def case(shape):
    """Four compiled layers, four micro-batches of one 4,096-token sample."""
    return dict(shape, layers=4, micro_batch=1, seq=4096, micro_batches=4, compile=True)


CASES = {
    "gpt-oss-ep8": case(GPT_OSS_EP8),
    "qwen3-30b-ep8": case(QWEN3_30B_EP8),
}


def run_case(name, case):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    torch.manual_seed(0)
    dev = "cuda"
    h, a, kv, d, V = case["hidden"], case["heads"], case["kv_heads"], case["head_dim"], case["vocab"]
    E, K, f = case["experts"], case["topk"], case["expert_ffn"]
    s, b = case["seq"], case["micro_batch"]
    T = b * s
    rotate = llama_step.rotary(d, s)

    window = case["window"]
    if window:
        def in_window(batch, head, q, k):
            return (q >= k) & (q - k < window)
        window_mask = create_block_mask(in_window, None, None, s, s, device=dev)
        # FlexAttention runs fused only compiled, as it is inside the
        # compiled layers

    # Routing in equal shares: token t's copies go to experts tK .. tK+K-1
    # (mod E), K different experts, per_expert = T*K/E copies each. Sorted
    # by expert (the permutation), copy r is copy order[r] of the (token,
    # k) pairs; in the token order again, pair i sits at inverse[i].
    per_expert = T * K // E
    route = (torch.arange(T * K, device=dev) % E).view(T, K)
    order = route.view(-1).argsort(stable=True)
    inverse = order.argsort()
    offs = torch.arange(per_expert, T * K + 1, per_expert, device=dev, dtype=torch.int32)

    def activation(x):
        if case["activation"] == "clamped_geglu":  # gpt-oss: interleaved gate and up, clamped at 7
            gate, up = x[..., ::2].clamp(max=7.0), x[..., 1::2].clamp(-7.0, 7.0)
            return (up + 1.0) * gate * torch.sigmoid(1.702 * gate)
        gate, up = x.chunk(2, dim=-1)
        return F.silu(gate) * up

    class Layer(nn.Module):
        def __init__(self, windowed):
            super().__init__()
            bias = case["bias"]
            self.windowed = windowed
            self.norm1 = nn.RMSNorm(h, eps=1e-5)
            self.norm2 = nn.RMSNorm(h, eps=1e-5)
            self.wqkv = nn.Linear(h, (a + 2 * kv) * d, bias=bias)
            self.wo = nn.Linear(a * d, h, bias=bias)
            self.router = nn.Linear(h, E, bias=bias)
            self.w1 = nn.Parameter(torch.empty(E, 2 * f, h))  # out x in, per expert
            self.w2 = nn.Parameter(torch.empty(E, h, f))
            self.b1 = nn.Parameter(torch.zeros(E, 2 * f)) if bias else None
            self.b2 = nn.Parameter(torch.zeros(E, h)) if bias else None

        def forward(self, x):
            y = self.norm1(x)
            q, k, v = self.wqkv(y).split([a * d, kv * d, kv * d], dim=-1)
            q = rotate(q.view(b, s, a, d).transpose(1, 2))
            k = rotate(k.view(b, s, kv, d).transpose(1, 2))
            v = v.view(b, s, kv, d).transpose(1, 2)
            if self.windowed:
                o = flex_attention(q, k, v, block_mask=window_mask, enable_gqa=True)
            else:
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            x = x + self.wo(o.transpose(1, 2).reshape(b, s, a * d))
            y = self.norm2(x).view(T, h)
            logits = self.router(y)
            weights = torch.softmax(logits.gather(1, route).float(), dim=-1).to(y.dtype)
            # each token copied K times and sorted by expert, gathered as
            # Transformer Engine's fused permutation does (no atomic adds)
            copies = y.unsqueeze(1).expand(T, K, h).reshape(T * K, h).index_select(0, order)
            h1 = torch._grouped_mm(copies, self.w1.transpose(-2, -1), offs=offs)
            if self.b1 is not None:  # each expert's rows are one block of per_expert
                h1 = (h1.view(E, per_expert, 2 * f) + self.b1.unsqueeze(1)).view(T * K, 2 * f)
            h2 = torch._grouped_mm(activation(h1), self.w2.transpose(-2, -1), offs=offs)
            if self.b2 is not None:
                h2 = (h2.view(E, per_expert, h) + self.b2.unsqueeze(1)).view(T * K, h)
            # back to token order, weighed and summed over each token's copies
            out = (h2.index_select(0, inverse).view(T, K, h) * weights.unsqueeze(-1)).sum(1)
            return x + out.view(b, s, h)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(V, h)
            self.layers = nn.ModuleList(Layer(window > 0 and i % 2 == 0) for i in range(case["layers"]))
            self.norm = nn.RMSNorm(h, eps=1e-5)
            self.head = nn.Linear(h, V, bias=False)

        def forward(self, tokens, targets):
            x = self.embed(tokens)
            for layer in self.layers:
                x = layer(x)
            logits = self.head(self.norm(x))
            return F.cross_entropy(logits.float().view(-1, V), targets.view(-1))

    model = llama_step.on_gpu(Model(), case)
    return {"case": name, **case, **llama_step.measure_step(model, case)}


if __name__ == "__main__":
    llama_step.main(__file__, CASES, run_case)
