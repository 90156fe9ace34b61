"""Sums in a fixed order, so that the compiled heuristic adds up its expectations exactly as it always has.

The heuristic was first written with numpy, whose `@` calls BLAS and whose `sum` adds pairwise; its
decisions (and the golden games recorded with them) depend on those sums to the last bit wherever two
plans tie. These functions fix that order, as numpy with OpenBLAS computes it on x86-64 for the 15-long
vectors used here: `gemv_row` as OpenBLAS's `dgemv_t` (four-lane fused multiply-adds over blocks of four, a
three-term tail), `dot` as its `ddot` below 16 terms (one fused multiply-add chain), `row_sum` as numpy's
pairwise summation. `fma` is a fused multiply-add rounded once (LLVM's `llvm.fma`; exact rational
arithmetic when numba's JIT is disabled).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

if config.DISABLE_JIT:

    def fma(a: float, b: float, c: float) -> float:
        """a * b + c, rounded once."""
        return float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))

else:

    @intrinsic
    def fma(typingctx, a, b, c):  # type: ignore[no-untyped-def]
        """a * b + c for three float64s, rounded once (an intrinsic: compiled inline into its caller)."""
        sig = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            double = ir.DoubleType()
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double] * 3), "llvm.fma.f64")
            return builder.call(fn, args)

        return sig, codegen


@njit(cache=True)
def dot(a: np.ndarray, b: np.ndarray) -> float:
    """a @ b for fewer than 16 terms: one fused multiply-add chain from 0."""
    s = 0.0
    for i in range(a.shape[0]):
        s = fma(a[i], b[i], s)
    return s


@njit(cache=True)
def gemv_row(row: np.ndarray, x: np.ndarray, r: int, n: int) -> float:
    """(a @ x)[r] for a C-ordered (n, m) matrix a whose row r is `row`, m < 2048, in OpenBLAS `dgemv_t`'s order.

    Rows go four at a time through lanes of fused multiply-adds, the two or one left over through plain
    products and sums; the last m % 4 terms are added after.
    """
    m = row.shape[0]
    tail = m & 3
    body = m - tail
    fours = n - (n & 3)
    y = 0.0
    if body > 0:
        l0, l1, l2, l3 = 0.0, 0.0, 0.0, 0.0
        if r < fours:  # lane l sums terms l, l+4, ...
            for i in range(0, body, 4):
                l0 = fma(row[i], x[i], l0)
                l1 = fma(row[i + 1], x[i + 1], l1)
                l2 = fma(row[i + 2], x[i + 2], l2)
                l3 = fma(row[i + 3], x[i + 3], l3)
            y = 0.0 + ((l0 + l2) + (l1 + l3))
        elif r < fours + (n & 2):  # two rows left: two lanes, the even and the odd terms
            for i in range(0, body, 2):
                l0 += row[i] * x[i]
                l1 += row[i + 1] * x[i + 1]
            y = 0.0 + (l0 + l1)
        else:  # the last row
            for i in range(0, body, 4):
                l0 += row[i] * x[i]
                l1 += row[i + 1] * x[i + 1]
                l2 += row[i + 2] * x[i + 2]
                l3 += row[i + 3] * x[i + 3]
            y = 0.0 + ((l0 + l2) + (l1 + l3))
    if tail == 3:
        y += fma(row[body + 2], x[body + 2], fma(row[body], x[body], row[body + 1] * x[body + 1]))
    elif tail == 2:
        y += fma(row[body], x[body], row[body + 1] * x[body + 1])
    elif tail == 1:
        y = fma(row[body], x[body], y)
    return y


@njit(cache=True)
def row_sum(a: np.ndarray) -> float:
    """a.sum() for a 1-D array of fewer than 129 terms: numpy's pairwise order (blocks of eight)."""
    n = a.shape[0]
    if n < 8:
        s = 0.0
        for i in range(n):
            s += a[i]
        return 0.0 + s
    r = a[:8].copy()
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        s += a[i]
        i += 1
    return 0.0 + s
