"""The GRPO update itself, simulated: beyond arXiv 2502.18548, which characterises the
stationary policies of Eq. (1) but does not run the algorithm.

Plain numpy functions (no sympy), vectorised over independent runs, for the ``Simulation``
claims of ``derivations/x3_grpo_dynamics.py``.  One question q with K outputs and
deterministic rewards ``rewards[k]``; the policy is a softmax over K logits.  One step:

1. from pi_old, sample ``groups`` groups of G outputs each (i.i.d., per run);
2. advantages by Eq. (2): (r_i - mean) / std with the population std, A_i = 0 when all
   rewards of the group are equal;
3. the sampled objective of Eq. (1), averaged over the groups: (1/G) sum_i (tilde A_i -
   beta D_i) with tilde A_i = min(rho_i A_i, clip(rho_i) A_i), rho_i = pi(o_i)/pi_old(o_i),
   the clip of PPO and of GRPO implementations (to [1 - eps, 1 + eps]; inside the band it is
   the identity, like the clip as the paper describes it), and D_i = ref/pi - log(ref/pi) - 1
   (the k3 estimator: the KL_0 penalty of Section 2.2);
4. its exact gradient with respect to the logits (d rho/d theta_k = rho (1[k = o] - pi_k),
   d D/d theta_k = (1 - ref(o)/pi(o)) (1[k = o] - pi_k); the min/clip contributes rho A where
   the unclipped branch is active and 0 where the clip binds);
5. gradient ascent: theta += lr * gradient; pi_old <- pi every ``refresh`` steps.

The settled policy of a run is the average of pi over the last ``tail`` fraction of its
steps.  Every random number comes from ``numpy.random.default_rng(seed)``: the same seed
gives the same numbers.

Reference points the simulations are compared with (floats / mpmath, no sympy):
``x_g`` (the binary stationary policy of (11) at a finite G), ``stationary_g2`` (Eq. (12)
for K outputs, solved numerically), ``closed_form_14`` and ``closed_form_15``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["simulate", "sampled_objective", "sampled_gradient", "settled", "settled_output", "iterated_frozen_argmax", "frozen_objective_binary",
           "pg_binary", "x_g", "stationary_g2", "closed_form_14", "closed_form_15", "softmax",
           "target_14", "target_15", "target_x_g", "target_stationary_g2"]


def softmax(theta):
    z = theta - theta.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _advantages(r):
    """Eq. (2) along the last axis: (r - mean)/std, population std, 0 where all are equal."""
    m = r.mean(axis=-1, keepdims=True)
    d = r - m
    s = np.sqrt((d * d).mean(axis=-1, keepdims=True))
    return np.where(s > 0, d / np.where(s > 0, s, 1.0), 0.0)


def sampled_objective(theta, old, idx, rewards, ref, beta, eps):
    """The sampled objective of Eq. (1) per run, averaged over its groups: (1/G) sum_i
    (min(rho_i A_i, clip(rho_i) A_i) - beta D_i), for logits `theta` (runs, K), the old
    policy `old` (runs, K) and sampled outputs `idx` (runs, groups, G).  What
    :func:`sampled_gradient` differentiates (used by the tests, by finite differences)."""
    rewards, ref = np.asarray(rewards, dtype=float), np.asarray(ref, dtype=float)
    pi = softmax(theta)
    A = _advantages(rewards[idx])
    p_o = np.take_along_axis(pi[:, None, :], idx.reshape(idx.shape[0], 1, -1), axis=2).reshape(idx.shape)
    o_o = np.take_along_axis(old[:, None, :], idx.reshape(idx.shape[0], 1, -1), axis=2).reshape(idx.shape)
    rho = p_o / o_o
    surrogate = np.minimum(rho * A, np.clip(rho, 1 - eps, 1 + eps) * A)
    d = ref[idx] / p_o - np.log(ref[idx] / p_o) - 1
    return (surrogate - beta * d).mean(axis=(1, 2))


def sampled_gradient(theta, old, idx, rewards, ref, beta, eps):
    """The exact gradient of :func:`sampled_objective` in the logits (runs, K); see the
    module docstring, step 4 (at rho exactly on the clip's edge, the one-sided derivative of
    the unclipped branch)."""
    rewards, ref = np.asarray(rewards, dtype=float), np.asarray(ref, dtype=float)
    K = rewards.size
    pi = softmax(theta)
    A = _advantages(rewards[idx])
    onehot = np.eye(K)[idx]                                  # (runs, groups, G, K)
    p_o = np.einsum("rgik,rk->rgi", onehot, pi)
    rho = p_o / np.einsum("rgik,rk->rgi", onehot, old)
    active = np.where(A > 0, rho < 1 + eps, np.where(A < 0, rho > 1 - eps, False))
    c = np.where(active, rho * A, 0.0) - beta * (1 - ref[idx] / p_o)
    # (1/G) sum_i c_i (e_{o_i} - pi), averaged over the groups
    n = idx.shape[1] * idx.shape[2]
    return np.einsum("rgi,rgik->rk", c, onehot) / n - c.mean(axis=(1, 2))[:, None] * pi


def simulate(seed: int, runs: int, *, rewards, ref, beta, G, steps, lr, refresh=4, groups=8, eps=0.2,
             init=None, tail=0.5):
    """`runs` independent GRPO runs (see the module docstring); returns (runs, K): each run's
    pi averaged over the last `tail` fraction of the steps.  `init`: the initial policy (a
    probability vector; default the reference policy)."""
    rng = np.random.default_rng(seed)
    rewards = np.asarray(rewards, dtype=float)
    ref = np.asarray(ref, dtype=float)
    start = ref if init is None else np.asarray(init, dtype=float)
    theta = np.tile(np.log(start), (runs, 1))
    pi = softmax(theta)
    old = pi.copy()
    cdf = np.cumsum(old, axis=1)[:, None, None, :-1]
    keep_from = int(steps * (1 - tail))
    acc = np.zeros_like(pi)
    for t in range(steps):
        if t % refresh == 0:
            old = pi
            cdf = np.cumsum(old, axis=1)[:, None, None, :-1]
        u = rng.random((runs, groups, G, 1))
        idx = (u > cdf).sum(axis=-1)                       # (runs, groups, G) sampled outputs
        theta = theta + lr * sampled_gradient(theta, old, idx, rewards, ref, beta, eps)
        pi = softmax(theta)
        if t >= keep_from:
            acc += pi
    return acc / (steps - keep_from)


def settled(seed: int, runs: int, **params):
    """Each run's settled pi(a) (output 0) of :func:`simulate`: the per-run estimates."""
    return simulate(seed, runs, **params)[:, 0]


def settled_output(seed: int, runs: int, *, output: int = 0, **params):
    """Each run's settled pi of output number `output`."""
    return simulate(seed, runs, **params)[:, output]


# ---------------------------------------------------------------- the paper's notion, iterated

def frozen_objective_binary(x, old, ref, beta, gamma=1.0):
    """J(x; old) of Appendix B.1 for groups of two, up to a constant: gamma (x - old) - beta
    KL_0(x || ref; old) (vectorised in x and old)."""
    kl0 = (old * ref / x + (1 - old) * (1 - ref) / (1 - x) - old * np.log(ref / x)
           - (1 - old) * np.log((1 - ref) / (1 - x)) - 1)
    return gamma * (x - old) - beta * kl0


def iterated_frozen_argmax(seed: int, runs: int, *, ref, beta, start, jitter, iterations, gamma=1.0,
                           grid=4000, tail=0.5, centre=None):
    """The paper's notion of a stationary policy iterated (binary question, groups of two):
    pi_old <- the maximiser over (0, 1) of the expected frozen objective J(x; pi_old)
    (Appendix B.1), from `start` moved by a uniform jitter in [-jitter, jitter] per run
    (the only randomness).  The maximiser is found on a grid of `grid` points in logit
    space, refined by golden-section search around the best grid point.  `ref` is
    pi_ref(a), a number.  Returns each run's pi_old averaged over the last `tail` fraction
    of the iterations, or, with `centre`, the average of |pi_old - centre| over them (how
    far the iteration stays from `centre`)."""
    rng = np.random.default_rng(seed)
    p = np.clip(start + (rng.uniform(-jitter, jitter, size=runs) if jitter else np.zeros(runs)), 1e-6, 1 - 1e-6)
    z = np.linspace(-14.0, 14.0, grid)
    xs = 1 / (1 + np.exp(-z))
    keep_from = int(iterations * (1 - tail))
    acc = np.zeros(runs)
    for t in range(iterations):
        vals = frozen_objective_binary(xs[None, :], p[:, None], ref, beta, gamma)
        best = vals.argmax(axis=1)
        lo = z[np.maximum(best - 1, 0)]
        hi = z[np.minimum(best + 1, grid - 1)]
        for _ in range(40):   # golden section in logit space, all runs at once
            a = hi - 0.618033988749895 * (hi - lo)
            b = lo + 0.618033988749895 * (hi - lo)
            fa = frozen_objective_binary(1 / (1 + np.exp(-a)), p, ref, beta, gamma)
            fb = frozen_objective_binary(1 / (1 + np.exp(-b)), p, ref, beta, gamma)
            lo, hi = np.where(fa < fb, a, lo), np.where(fa < fb, hi, b)
        p = 1 / (1 + np.exp(-(lo + hi) / 2))
        if t >= keep_from:
            acc += p if centre is None else np.abs(p - centre)
    return acc / (iterations - keep_from)


# ---------------------------------------------------------------- reference points

def closed_form_14(beta, ref, gamma=1.0):
    """Eq. (14) in floats."""
    c = beta / gamma
    return 0.5 * (1 - c + math.sqrt((1 - c) ** 2 + 4 * c * ref))


def closed_form_15(beta, ref):
    """Eq. (15) in floats."""
    return (2 * beta ** 2 * ref + 1 + math.sqrt(1 + 4 * beta ** 2 * ref * (1 - ref))) / (2 * (1 + beta ** 2))


def pg_binary(G, x):
    """P_G(a | pi) of Section 2.1 for a binary question with r(a) = 1 > r(b) = 0 and pi(a) = x:
    sum_{k=0}^{G-2} C(G-1, k) x^k (1 - x)^(G-1-k) sqrt((G-1-k)/(k+1)) (k: the other a's of
    the group; the all-a group, k = G - 1, has advantage 0).  mpmath, any x in [0, 1]."""
    import mpmath as mp
    x = mp.mpf(x)
    return mp.fsum(mp.binomial(G - 1, k) * x ** k * (1 - x) ** (G - 1 - k) * mp.sqrt(mp.mpf(G - 1 - k) / (k + 1))
                   for k in range(G - 1))


def x_g(G, beta, ref):
    """The binary stationary policy of Eq. (11) at group size G: the root in (0, 1) of
    x (1 - P_G(a | x)/beta) = ref (under pi itself the mean group-relative preference is 0),
    found by bisection (the left side minus ref is negative near 0 and positive at 1)."""
    import mpmath as mp
    G, beta, ref = int(G), mp.mpf(beta), mp.mpf(ref)

    def f(x):
        return x * (1 - pg_binary(G, x) / beta) - ref
    lo, hi = mp.mpf(0), mp.mpf(1)
    if not (f(lo) < 0 < f(hi)):
        raise ValueError(f"x_G: no sign change on (0, 1) for G={G}, beta={beta}, ref={ref}")
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return float((lo + hi) / 2)


def stationary_g2(rewards, ref, beta, output=0):
    """Eq. (12) for K outputs with distinct deterministic rewards: (1 - P_2(o)/beta) pi(o) =
    ref(o) with P_2(o) = P_{o' ~ pi}[r > r'] - P[r < r'] (its pi-mean is 0), solved by
    mpmath.findroot from the reference policy; returns pi(output)."""
    import mpmath as mp
    r = [mp.mpf(v) for v in rewards]
    ref = [mp.mpf(v) for v in ref]
    beta = mp.mpf(beta)
    K = len(r)

    def residual(*p):
        p = list(p) + [1 - mp.fsum(p)]
        pg = [mp.fsum(p[j] * mp.sign(r[k] - r[j]) for j in range(K)) for k in range(K)]
        return [(1 - pg[k] / beta) * p[k] - ref[k] for k in range(K - 1)]
    with mp.workdps(30):
        sol = mp.findroot(residual, ref[:K - 1])
        sol = [sol] if K == 2 else list(sol)
        p = [mp.mpf(v) for v in sol] + [1 - mp.fsum(sol)]
        if not all(0 < v < 1 for v in p) or max(abs(v) for v in residual(*p[:K - 1])) > mp.mpf(10) ** -20:
            raise ValueError("stationary_g2: findroot did not reach an interior solution")
        return float(p[output])


# ---------------------------------------------------------------- targets, from a simulation's params
# (a Simulation claim calls its target with the same keyword parameters as its run function)

def target_14(*, ref, beta, gamma=1.0, **_):
    """Eq. (14) for a binary simulation (ref = [pi_ref(a), pi_ref(b)]; gamma = 1 for
    deterministic rewards r(a) > r(b))."""
    return closed_form_14(beta, ref[0], gamma)


def target_15(*, ref, beta, **_):
    """Eq. (15) for a binary simulation."""
    return closed_form_15(beta, ref[0])


def target_x_g(*, G, ref, beta, **_):
    """x_G (:func:`x_g`) at the simulation's own group size G."""
    return x_g(G, beta, ref[0])


def target_stationary_g2(*, rewards, ref, beta, output=0, **_):
    """Eq. (12) solved numerically (:func:`stationary_g2`) for the simulated output."""
    return stationary_g2(rewards, ref, beta, output)
