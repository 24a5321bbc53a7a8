"""Cases of the lang family 'attention': fused attention forward (online softmax in base 2, causal
and not) (its kernels are in attention/kernels.py)."""
import numpy as np

from harness import add, rng


def cases():
    # attention
    def attn_ref(a, causal):
        q = a["q_ptr"].astype(np.float64)
        k = a["k_ptr"].astype(np.float64)
        v = a["v_ptr"].astype(np.float64)
        s = np.einsum("hmd,hnd->hmn", q, k) * a["sm_scale"]
        L = q.shape[1]
        if causal:
            s = np.where(np.tril(np.ones((L, L), bool))[None], s, -np.inf)
        mx = s.max(-1, keepdims=True)
        e = np.exp(s - mx)
        o = np.einsum("hmn,hnd->hmd", e / e.sum(-1, keepdims=True), v)
        lse = (mx[..., 0] + np.log(e.sum(-1))) / np.log(2)
        return {"o_ptr": o, "lse_ptr": lse}
    for (H, L, D, BM, BN, causal) in [(2, 100, 16, 16, 32, False), (1, 33, 32, 16, 16, True), (3, 7, 16, 16, 16, False),
                                      (2, 64, 16, 32, 16, True)]:
        r = rng(130 + L)
        q, k, v = (r.standard_normal((H, L, D)).astype(np.float32) for _ in range(3))
        add("attention", "attn_fwd_h%d_l%d_d%d%s" % (H, L, D, "_causal" if causal else ""), "attention/kernels.py",
            "attn_fwd_kernel", ((L + BM - 1) // BM, H),
            dict(q_ptr=q, k_ptr=k, v_ptr=v, o_ptr=np.zeros_like(q), lse_ptr=np.zeros((H, L), np.float32), seq_len=L,
                 sm_scale=float(1 / np.sqrt(D)), BM=BM, BN=BN, D=D, CAUSAL=causal),
            ["o_ptr", "lse_ptr"], lambda a, c=causal: attn_ref(a, c), rtol=1e-4, atol=1e-4)
