/*
 * network.c: time of collectives and point-to-point transfers on a two-tier
 * network, and where each parallel group's ranks sit.
 *
 * Two tiers as in Subramanian et al. 2024 §S2: a fast domain of gpus_per_node
 * GPUs (NVLink, NVSwitch) and a slow tier between nodes. A group of n ranks
 * with r of them on each node spans n/r nodes. Ring all-gather of a buffer of
 * V bytes (Subramanian et al. 2024's t_comm):
 *
 *   t = alpha_s (n/r - 1) + alpha_f (n - n/r) + (n-1)/n * V / beta
 *
 * with beta the fast rate inside one node, and across nodes the smaller of the
 * fast rate and the node's NIC bandwidth available to the group.
 * Subramanian et al. 2024 gives a group the node's n_NIC NICs; we give it the
 * share its r ranks own, r * n_NIC * beta_s / gpus_per_node, because every GPU
 * of a node runs its own group of the same kind at the same moment (all tp
 * ranks reduce gradients at once). With r = gpus_per_node that is
 * Subramanian et al. 2024's formula. Each tier reaches its efficiency times
 * its line rate (Subramanian et al. 2024 observed 70%).
 *
 * Reduce-scatter costs what all-gather costs; a ring all-reduce is the two
 * together; a tree all-reduce (NCCL's other algorithm) pays log2(n) latency
 * steps twice and the buffer twice, and the faster of the two is used. An
 * all-to-all (MoE dispatch) sends each peer its share at once, inside the
 * node and across nodes side by side.
 */
#include <math.h>

#include "tp_internal.h"

/* Line rate one rank of a group of per_node ranks per node can use across
 * nodes: its share of the node's NICs, times per_node ranks, per rank. */
static double nic_share_bytes_per_s(const tp_system *s, int64_t per_node)
{
    const tp_network *n = &s->network;
    return (double)n->nics_per_node * n->slow.bytes_per_s * (double)per_node / (double)s->gpus_per_node;
}

/* What the collectives reach of it: the slow tier's efficiency. */
static double slow_bytes_per_s(const tp_system *s, int64_t per_node)
{
    return nic_share_bytes_per_s(s, per_node) * s->network.slow.efficiency;
}

static double fast_bytes_per_s(const tp_system *s)
{
    return s->network.fast.bytes_per_s * s->network.fast.efficiency;
}

int64_t net_ranks_per_node(int64_t size, int64_t stride, int64_t gpus_per_node)
{
    if (stride >= gpus_per_node)
        return 1;
    const int64_t fit = gpus_per_node / stride;
    return fit < size ? fit : size;
}

/* The rate a group of n ranks, per_node of them on each node, moves data
 * at: the fast tier inside a node, the slower of the two across nodes. */
static double group_bytes_per_s(const tp_system *s, int64_t n, int64_t per_node)
{
    const double fast = fast_bytes_per_s(s);
    if (net_within_node(n, per_node))
        return fast;
    const double slow = slow_bytes_per_s(s, per_node);
    return slow < fast ? slow : fast;
}

/* One ring pass (all-gather or reduce-scatter) of a buffer of bytes. */
static double ring_pass_s(const tp_system *s, double bytes, int64_t n, int64_t per_node)
{
    const double nodes = (double)n / (double)per_node;
    const tp_network *net = &s->network;
    const double latency = nodes > 1.0
        ? net->slow.latency_s * (nodes - 1.0) + net->fast.latency_s * ((double)n - nodes)
        : (double)(n - 1) * net->fast.latency_s;
    return latency + (double)(n - 1) / (double)n * bytes / group_bytes_per_s(s, n, per_node);
}

double net_collective_s(const tp_system *s, net_collective kind, double bytes, int64_t n,
                        int64_t per_node)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    switch (kind) {
    case NET_ALL_GATHER:
    case NET_REDUCE_SCATTER:
        return ring_pass_s(s, bytes, n, per_node);
    case NET_ALL_TO_ALL: {
        /* every rank sends 1/n of its buffer to each other rank at once:
         * (r - 1)/n of it over the fast tier, (n - r)/n through the node's
         * NICs, which every GPU of the node shares (all run their own
         * all-to-all together); the two proceed side by side */
        const double nodes = (double)n / (double)per_node;
        const tp_network *net = &s->network;
        const double inside = (double)(per_node - 1) / (double)n * bytes / fast_bytes_per_s(s);
        const double outside = nodes > 1.0
            ? (double)(n - per_node) / (double)n * bytes / slow_bytes_per_s(s, 1) : 0.0;
        const double latency = nodes > 1.0 ? net->slow.latency_s : net->fast.latency_s;
        return latency + (inside > outside ? inside : outside);
    }
    case NET_BROADCAST:
        /* pipelined along a ring: the buffer once, latency once per hop */
        return ring_pass_s(s, bytes, n, per_node) * (double)n / (double)(n - 1);
    case NET_ALL_REDUCE: {
        const double ring = 2.0 * ring_pass_s(s, bytes, n, per_node);
        const double alpha = net_within_node(n, per_node) ? s->network.fast.latency_s : s->network.slow.latency_s;
        const double tree = 2.0 * ceil(log2((double)n)) * alpha
                          + 2.0 * bytes / group_bytes_per_s(s, n, per_node);
        return ring < tree ? ring : tree;
    }
    }
    return 0.0;
}

/* DeepEP's and HybridEP's dispatch and combine (Megatron-Core's flex
 * dispatcher) send a token over the network once to each other node that
 * holds any of its experts, to the GPU of its own index there, which
 * forwards the copies over NVLink (DeepSeek-V3 §3.2.2). With each copy's
 * expert on any of the n ranks alike, a token reaches (D - 1)(1 - (1 -
 * 1/D)^k) of the other D - 1 nodes: for k = 8 on two nodes 1, not the 4
 * copies an all-to-all sends there. NVLink carries the (r - 1)/r of each
 * rank's k copies that end on another GPU of their node; the two tiers
 * proceed side by side. DeepEP's kernels write to the NIC from SMs set
 * aside for it, so the network part runs at NET_NDR_EFFICIENCY even where
 * the network's collectives keep less (a higher efficiency stands). */
double net_forwarded_all_to_all_s(const tp_system *s, double tokens, double token_bytes, double copies,
                                  int64_t n, int64_t per_node)
{
    if (n <= 1 || tokens <= 0.0)
        return 0.0;
    const double nodes = (double)n / (double)per_node;
    if (nodes <= 1.0)
        return net_collective_s(s, NET_ALL_TO_ALL, tokens * copies * token_bytes, n, per_node);
    const double remote_nodes = (nodes - 1.0) * (1.0 - pow(1.0 - 1.0 / nodes, copies));
    const double rdma = nic_share_bytes_per_s(s, 1) * fmax(s->network.slow.efficiency, NET_NDR_EFFICIENCY);
    const double outside = tokens * token_bytes * remote_nodes / rdma;
    const double inside = tokens * copies * token_bytes * (double)(per_node - 1) / (double)per_node
                        / fast_bytes_per_s(s);
    return s->network.slow.latency_s + (inside > outside ? inside : outside);
}

double net_p2p_s(const tp_system *s, double bytes, int same_node)
{
    if (bytes <= 0.0)
        return 0.0;
    if (same_node)
        return s->network.fast.latency_s + bytes / fast_bytes_per_s(s);
    return s->network.slow.latency_s + bytes / slow_bytes_per_s(s, 1);
}
