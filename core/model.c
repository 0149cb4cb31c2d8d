/*
 * model.c: parameter and activation counts of a Llama-style transformer.
 *
 * One layer is described once (model_describe_layer) and every count is read
 * off that description. Symbols follow seed 003 Table 1: h hidden, a heads,
 * k key/value heads, h_ffn MLP width, v vocabulary, L layers, d_head = h/a.
 *
 * Parameters (seed 003 §3.1):
 *   attention  2h^2(1 + k/a)     eq. 1: W_Q, W_O are h x h; W_K, W_V are h x (k d_head)
 *   MLP        3 h h_ffn         eq. 2: gate, up, down projections (SwiGLU)
 *   norms      2h                two RMSNorm scale vectors, replicated over tp
 *   total      2hv + h + L(...)  eq. 3: untied embedding and LM head, final norm
 *
 * Activations with FlashAttention, bf16, per token of one sample (seed 003
 * §3.2, eq. 11-12), in bytes:
 *   attention  input X 2h, Q 2h, K and V 2h(k/a) each, context 2h   (eq. 11)
 *   MLP        input 2h, up, gate, SiLU(gate), product 2h_ffn each
 *   norms      the input of each of the two RMSNorms, 2h each
 *   sum        h(12 + 4k/a + 8 h_ffn/h)                                (eq. 12)
 * Tensor parallelism splits the tensors inside attention and the MLP (Q, K,
 * V, context and the four h_ffn tensors). The inputs of the two norms and of
 * the two blocks (8h bytes) are replicated across tp unless sequence
 * parallelism splits them along the sequence (Korthikanti et al. 2023 §4.2.2,
 * as seed 003 §3.2.1 summarises; with sp on this gives eq. 15).
 */
#include "tp_internal.h"

model_layer model_describe_layer(const tp_model *m)
{
    const double h = (double)m->hidden;
    const double kv_width = (double)m->kv_heads * (double)(m->hidden / m->heads);
    const double ffn = (double)m->ffn_hidden;
    model_layer layer;
    layer.attention_params = 2.0 * h * h + 2.0 * h * kv_width;
    layer.mlp_params = 3.0 * h * ffn;
    layer.norm_params = 2.0 * h;
    /* Q 2h + K,V 2*2 kv_width + context 2h + MLP 4 x 2 h_ffn */
    layer.act_tp_split_bytes_per_token = 4.0 * h + 4.0 * kv_width + 8.0 * ffn;
    /* attention input 2h + MLP input 2h + two norm inputs 2 x 2h */
    layer.act_sp_split_bytes_per_token = 8.0 * h;
    return layer;
}

double model_layer_params(const model_layer *layer)
{
    return layer->attention_params + layer->mlp_params + layer->norm_params;
}

double model_layer_params_per_gpu(const model_layer *layer, int64_t tp)
{
    return (layer->attention_params + layer->mlp_params) / (double)tp + layer->norm_params;
}

double model_embedding_params(const tp_model *m)
{
    return (double)m->vocab * (double)m->hidden;
}

double model_final_norm_params(const tp_model *m)
{
    return (double)m->hidden;
}

int64_t tp_model_params_total(const tp_model *m)
{
    /* Exact integer form of eq. 3; inputs are bounded by validation so this
     * cannot overflow int64 (2 * 1e6 * 1e7 + 1e4 * 1e13 < 9.2e18). */
    const int64_t h = m->hidden;
    const int64_t kv_width = m->kv_heads * (m->hidden / m->heads);
    const int64_t layer = 2 * h * h + 2 * h * kv_width + 3 * h * m->ffn_hidden + 2 * h;
    return 2 * h * m->vocab + h + m->layers * layer;
}
