"""A tuple of arrays passed to a kernel by reference: one pointer instead of every field of every array.

numba passes a tuple argument field by field: a step's structures (about 150 arrays, each a data pointer, its
shapes, strides and owner) cross every call as about a thousand machine words. That is why the step's phases were
inlined into their serial loop as well as compiled into their parallel blocks, paying their compile twice.
``by_ref(t)`` stores the tuple in the caller's stack frame and gives a ``TupleRef``, a pointer to it; the callee
reads the tuple back with ``deref(ref)``, and LLVM loads only the fields it uses.

The tuple is borrowed, not copied, and lives in the caller's frame: a reference must not outlive the call it is made
for. numba frees a variable after its last use, which would be the ``by_ref``, so ``core.jitcache.jit`` keeps every
variable of a kernel that calls ``by_ref`` to the end of its block. ``deref`` counts a reference to every array only
where numba's reference counting is on, as any borrowed value; a ``noalloc`` kernel counts none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model


class TupleRef(types.Type):
    """The numba type of a pointer to a tuple (``tup``, a numba tuple type) in the caller's frame."""

    def __init__(self, tup: types.BaseTuple) -> None:
        self.tup = tup
        super().__init__(name=f"TupleRef[{tup}]")

    @property
    def key(self) -> Any:
        return self.tup


@register_model(TupleRef)
class _TupleRefModel(models.PrimitiveModel):
    """A ``TupleRef`` is the tuple's data pointer."""

    def __init__(self, dmm: Any, fe_type: TupleRef) -> None:
        super().__init__(dmm, fe_type, dmm.lookup(fe_type.tup).get_data_type().as_pointer())


@intrinsic
def _by_ref(typingctx: Any, tup: Any) -> Any:
    """A ``TupleRef`` to ``tup``, valid while the calling kernel runs."""
    if not isinstance(tup, types.BaseTuple):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        model = context.data_model_manager[sig.args[0]]
        ptr = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), ptr)
        return ptr

    return TupleRef(tup)(tup), codegen


@intrinsic
def _deref(typingctx: Any, ref: Any) -> Any:
    """The tuple a ``TupleRef`` points to."""
    if not isinstance(ref, TupleRef):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        value = context.data_model_manager[sig.return_type].load_from_data_pointer(builder, args[0])
        if context.enable_nrt:
            context.nrt.incref(builder, sig.return_type, value)
        return value

    return ref.tup(ref), codegen


# As kernels call them (the type checker would see the typing functions' signatures).
by_ref: Callable[..., Any] = _by_ref
deref: Callable[..., Any] = _deref
