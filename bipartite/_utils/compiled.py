"""The package's one door to numba: :func:`compiled` (docs/theory.md §3.2 names the passes that
use it). numba is imported on the first call, not by ``import bipartite``."""

from __future__ import annotations

import functools
import types

__all__ = ["compiled", "compiled_prefetch"]


def compiled(f, calls: dict | None = None):
    """``f`` compiled by numba (imported here, on the first use), its machine code cached on disk
    (next to its module, else in the user's cache folder); where no cache folder is writable,
    numba refuses to cache, and ``f`` is compiled for this process only.

    ``calls``: compiled functions that ``f`` calls, by the global names ``f`` reads them under
    (``f`` is compiled with its module's globals plus these). They must not reach ``f`` through
    its closure: numba keys its disk cache by ``f``'s code and its closure's contents, pickled,
    and a compiled function pickles with an identifier new in every process, so such an ``f``
    would be compiled again, and one more copy cached, in every process. numba does not see a
    change to a called function's file: after editing one, delete the ``__pycache__/*.nbi``
    and ``*.nbc`` files of its callers (or set ``NUMBA_CACHE_DIR`` to a fresh folder)."""
    import numba

    if calls:
        g = dict(f.__globals__)
        g.update(calls)
        h = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
        h.__qualname__, h.__module__, h.__doc__ = f.__qualname__, f.__module__, f.__doc__
        f = h
    try:
        return numba.njit(cache=True, nogil=True)(f)
    except RuntimeError:   # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(f)


@functools.cache
def compiled_prefetch():
    """``prefetch(a, i)`` for compiled functions (bind it with ``calls``): a hint to the CPU to
    bring the cache line of ``a[i]`` (``a[i, 0]`` of a 2-D array) closer, for a write
    (LLVM's ``llvm.prefetch``, write, keep in all cache levels); no effect on any value, and no
    fault on any address, so ``i`` need not be checked. For passes whose next rows' random
    addresses are known a few rows ahead (:mod:`bipartite.diagnostics._walk`): the reads of a
    row's unit then come from the cache, where the CPU alone keeps only a few in flight."""
    from llvmlite import binding, ir
    from numba import types as nt
    from numba.core import cgutils
    from numba.extending import intrinsic

    # the intrinsic's name carries its pointer type: typed i8* before LLVM 15, opaque after
    name = "llvm.prefetch.p0" if binding.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"

    @intrinsic
    def prefetch(typingctx, a, i):
        if not isinstance(a, nt.Array) or not isinstance(i, nt.Integer):
            return None

        def codegen(context, builder, sig, args):
            ty = sig.args[0]
            arr = context.make_array(ty)(context, builder, args[0])
            at = [context.cast(builder, args[1], sig.args[1], nt.intp)]
            at += [context.get_constant(nt.intp, 0)] * (ty.ndim - 1)
            ptr = cgutils.get_item_pointer(context, builder, ty, arr, at, wraparound=False)
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), name)
            # (address, 1 = write, 3 = keep in every cache level, 1 = data cache)
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 1),
                              ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return nt.void(a, i), codegen

    return prefetch
