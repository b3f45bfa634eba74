"""The pmf closest to a prior that meets linear constraints (minimum KL divergence, I-projection).

Used to close the joint (g, w) pmf of the GFS model: the published marginals and shares are
linear constraints on it, and the independent product of the marginals is the prior, so the
fit adds only the dependence the constraints force. The solution has the exponential-family
form p = p0 exp(A^T lambda) / Z; lambda minimises the convex dual log Z(lambda) - lambda . b,
found by Newton's method with a backtracking line search (deterministic).
"""

from __future__ import annotations

import numpy as np

#: Largest |A p - b| accepted as converged, relative to the row's largest |A| (plus 1).
TOLERANCE = 1e-10


class InfeasibleConstraints(ValueError):
    """No pmf on the prior's support meets the constraints (the dual does not converge)."""


def _tilted(prior: np.ndarray, features: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, float]:
    z = features.T @ lam
    top = z.max()
    weights = prior * np.exp(z - top)
    total = weights.sum()
    return weights / total, float(np.log(total) + top)


def minimum_kl(prior: np.ndarray, features: np.ndarray, targets: np.ndarray,
               max_iter: int = 200) -> np.ndarray:
    """argmin_p KL(p || prior) subject to ``features @ p = targets`` and sum(p) = 1.

    ``prior``: a pmf over cells (zeros stay zero: they fix the support); ``features``: one
    row per constraint, one column per cell. Raises ``InfeasibleConstraints`` if the
    constraints cannot be met on the prior's support.
    """
    prior = np.asarray(prior, dtype=float)
    prior = prior / prior.sum()
    support = prior > 0
    A, b = np.asarray(features, dtype=float)[:, support], np.asarray(targets, dtype=float)
    p0 = prior[support]
    lam = np.zeros(b.size)
    q, log_z = _tilted(p0, A, lam)
    allowed = TOLERANCE * (1.0 + np.abs(A).max(axis=1, initial=0.0))
    for _ in range(max_iter):
        moments = A @ q
        gap = moments - b
        if (np.abs(gap) <= allowed).all():
            out = np.zeros(prior.size)
            out[support] = q
            return out
        centred = A - moments[:, None]
        hessian = (centred * q) @ centred.T
        step = np.linalg.lstsq(hessian, -gap, rcond=1e-12)[0]
        value, norm = log_z - lam @ b, np.abs(gap).max()
        t = 1.0
        flat = 1e-12 * max(1.0, abs(value))  # rounding of the dual's value
        while t > 1e-12:  # backtrack until the dual falls enough (Armijo) or, near the optimum
            trial = lam + t * step  # where the dual is flat to rounding, the largest gap shrinks
            q_t, log_z_t = _tilted(p0, A, trial)
            dual = log_z_t - trial @ b
            if (dual <= value + 1e-4 * t * (gap @ step)
                    or (dual <= value + flat and np.abs(A @ q_t - b).max() < norm)):
                break
            t /= 2
        lam, q, log_z = trial, q_t, log_z_t
    raise InfeasibleConstraints(
        f"constraints not met after {max_iter} Newton steps (largest gap "
        f"{np.abs(A @ q - b).max():.3g}): none of the prior's support meets them")
