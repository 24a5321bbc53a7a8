"""``tilec.language`` — the names Triton kernels and their host code use (``import
tilec.language as tl``): dtypes (``tl.float16``, ...), ``tl.constexpr``, ``tl.tensor``,
``tl.pointer_type`` and the kernel-language functions (``tl.load``, ``tl.arange``, ...).

Kernel bodies are compiled by tilec's C front end, not run in Python; these objects are
what host code and annotations see. Each carries ``__tilec_path__``, its canonical Triton
path (``"triton.language.float16"``), which the module-context builder hands to the
compiler for the kernel's global names.
"""

from . import _stubs

__tilec_path__ = "triton.language"

# ---- dtypes --------------------------------------------------------------------------

_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
         "fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64, "fp8e5": 8, "fp8e5b16": 8, "fp8e4nv": 8,
         "fp8e4b8": 8, "fp8e4b15": 8, "void": 0}
_SIGNED = {"i1": False, "i8": True, "i16": True, "i32": True, "i64": True}
_MANTISSA = {"fp8e4nv": 3, "fp8e4b8": 3, "fp8e4b15": 3, "fp8e5": 2, "fp8e5b16": 2, "fp16": 10, "bf16": 7,
             "fp32": 23, "fp64": 52}
_EXP_BIAS = {"fp8e4nv": 7, "fp8e4b8": 8, "fp8e4b15": 15, "fp8e5": 15, "fp8e5b16": 16, "fp16": 15, "bf16": 127,
             "fp32": 127, "fp64": 1023}


class dtype:
    """A Triton element type. ``name`` is Triton's (``"fp16"``, ``"int32"``, ...)."""

    def __init__(self, name, attr):
        self.name = name
        self._attr = attr  # tl.<attr>
        self.__tilec_path__ = f"triton.language.{attr}"

    @property
    def _sig(self):
        """The tilec signature spelling ("fp16", "i32", "u8", "i1")."""
        return _SIG_OF_NAME.get(self.name, self.name)

    @property
    def primitive_bitwidth(self):
        return _BITS[self._sig]

    def is_floating(self):
        return self._sig.startswith(("fp", "bf"))

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_fp8(self):
        return self.name.startswith("fp8")

    def is_int(self):
        return self._sig[0] in "iu" and self.name != "void"

    def is_int_signed(self):
        return _SIGNED.get(self._sig, False)

    def is_int_unsigned(self):
        return self._sig.startswith("u") or self._sig == "i1"

    def is_bool(self):
        return self._sig == "i1"

    def is_void(self):
        return self.name == "void"

    def is_ptr(self):
        return False

    # Triton's per-type facts (host side; the same facts the front end gives kernels).
    @property
    def int_bitwidth(self):
        return _BITS[self._sig] if self.is_int() else None

    @property
    def int_signedness(self):
        return ("SIGNED" if self.is_int_signed() else "UNSIGNED") if self.is_int() else None

    @property
    def fp_mantissa_width(self):
        return _MANTISSA.get(self._sig)

    @property
    def exponent_bias(self):
        return _EXP_BIAS.get(self._sig)

    @property
    def itemsize(self):
        return (_BITS[self._sig] + 7) // 8

    def is_standard_floating(self):
        return self._sig in ("fp16", "bf16", "fp32", "fp64")

    def is_block(self):
        return False

    def is_const(self):
        return False

    def get_int_max_value(self):
        if not self.is_int():
            raise RuntimeError(f"{self.name} is not an integer type")
        bits = _BITS[self._sig]
        return 2**(bits - 1) - 1 if self.is_int_signed() else 2**bits - 1

    def get_int_min_value(self):
        if not self.is_int():
            raise RuntimeError(f"{self.name} is not an integer type")
        return -2**(_BITS[self._sig] - 1) if self.is_int_signed() else 0

    def __getattr__(self, name):
        # is_int8(), is_uint32(), is_fp8e4nv(), ... as Triton's dtype has them
        if name.startswith("is_") and not name.startswith("is__"):
            want = name[3:]
            known = {n for _, n, _ in _DTYPES} | {a for a, _, _ in _DTYPES}
            if want in known:
                return lambda: self.name == want or self._attr == want
        raise AttributeError(f"'dtype' object has no attribute '{name}'")

    def to_ir(self, builder):  # pragma: no cover - Triton API shape only
        raise RuntimeError("tilec compiles kernels in C; there is no Python IR builder")

    @property
    def scalar(self):
        return self

    def __eq__(self, other):
        return isinstance(other, dtype) and not isinstance(other, pointer_type) and self.name == other.name

    def __hash__(self):
        return hash(("dtype", self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"triton.language.{self._attr}"


class pointer_type(dtype):
    """``tl.pointer_type(tl.float16)``: a pointer to ``element_ty``."""

    def __init__(self, element_ty, address_space=1, const=False):
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty.name}>"
        self._attr = f"pointer_type({element_ty!r})"

    def is_ptr(self):
        return True

    def __eq__(self, other):
        return isinstance(other, pointer_type) and self.element_ty == other.element_ty

    def __hash__(self):
        return hash(("pointer", self.element_ty))

    def __repr__(self):
        return f"pointer_type({self.element_ty!r})"


# (attribute, Triton name, tilec signature spelling)
_DTYPES = [
    ("int1", "int1", "i1"), ("int8", "int8", "i8"), ("int16", "int16", "i16"), ("int32", "int32", "i32"),
    ("int64", "int64", "i64"), ("uint8", "uint8", "u8"), ("uint16", "uint16", "u16"),
    ("uint32", "uint32", "u32"), ("uint64", "uint64", "u64"), ("float16", "fp16", "fp16"),
    ("bfloat16", "bf16", "bf16"), ("float32", "fp32", "fp32"), ("float64", "fp64", "fp64"),
    ("float8e5", "fp8e5", "fp8e5"), ("float8e5b16", "fp8e5b16", "fp8e5b16"),
    ("float8e4nv", "fp8e4nv", "fp8e4nv"), ("float8e4b8", "fp8e4b8", "fp8e4b8"),
    ("float8e4b15", "fp8e4b15", "fp8e4b15"), ("void", "void", "void"),
]
_SIG_OF_NAME = {name: sig for _, name, sig in _DTYPES}
_BY_SIG = {}
for _attr, _name, _sig in _DTYPES:
    globals()[_attr] = _BY_SIG[_sig] = dtype(_name, _attr)
del _attr, _name, _sig
pi32_t = pointer_type(int32)


def _dtype_from_sig(sig):
    """tilec signature spelling ("fp32", "i1", ...) -> tl dtype, or None."""
    return _BY_SIG.get(sig)


# ---- constexpr, tensors ----------------------------------------------------------------

class constexpr:
    """A compile-time value: ``BLOCK: tl.constexpr`` annotates constexpr parameters, and
    ``X = tl.constexpr(3)`` makes a module global usable inside kernels."""

    __tilec_path__ = "triton.language.constexpr"

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)


class tensor:
    """The type of tile values inside kernels (for ``isinstance`` checks in host code);
    tiles exist only in compiled code."""

    __tilec_path__ = "triton.language.tensor"

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.tensor values exist only inside compiled kernels")


class tensor_descriptor:
    """The type of ``tl.make_tensor_descriptor`` results inside kernels."""

    __tilec_path__ = "triton.language.tensor_descriptor"

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.tensor_descriptor values exist only inside compiled kernels")


class const:
    """``ptr: tl.const`` annotates a pointer parameter as pointing to constant data (Triton's
    ``tl.const``); a name for annotations only, no value is an instance."""

    __tilec_path__ = "triton.language.const"

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.const is a type annotation for pointer parameters")


class block_type(dtype):
    """Block (tile) types exist only in compiled code; the class is here for annotations."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(shape)
        self.name = f"<{shape}, {element_ty}>"
        self._attr = "block_type"


class range:  # noqa: A001 - Triton's name
    """``tl.range``: a loop iterator inside kernels (host code may still iterate it)."""

    __tilec_path__ = "triton.language.range"

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, **kwargs):
        import builtins
        start, end = (0, arg1) if arg2 is None else (arg1, arg2)
        self._range = builtins.range(int(start), int(end), int(step or 1))

    def __iter__(self):
        return iter(self._range)


class static_range(range):
    """``tl.static_range``: a loop unrolled at compile time."""

    __tilec_path__ = "triton.language.static_range"


def cdiv(x, div):
    """``ceil(x / div)`` for integers (also usable from host code)."""
    x = x.value if isinstance(x, constexpr) else x
    div = div.value if isinstance(div, constexpr) else div
    return (x + div - 1) // div


cdiv.__tilec_path__ = "triton.language.cdiv"

_FUNCTIONS = """
abs advance arange argmax argmin associative_scan assume atomic_add atomic_and atomic_cas atomic_max
atomic_min atomic_or atomic_xchg atomic_xor broadcast broadcast_to cast cat ceil clamp condition cos
cumprod cumsum debug_barrier device_assert device_print div_rn dot dot_scaled erf exp exp2
expand_dims fdiv flip floor fma full gather histogram inline_asm_elementwise interleave join load
load_tensor_descriptor log log2 make_block_ptr make_tensor_descriptor max max_constancy
max_contiguous maximum min minimum multiple_of num_programs pair_uniform_to_normal permute philox
philox_impl program_id rand rand4x randint randint4x randn randn4x ravel reduce reduce_or reshape
rsqrt sigmoid sin softmax sort split sqrt sqrt_rn squeeze static_assert static_print store
store_tensor_descriptor swizzle2d topk trans uint_to_uniform_float umulhi unsqueeze view where
xor_sum zeros zeros_like
""".split()
_stubs.export_stubs(globals(), "triton.language", _FUNCTIONS)

from . import math  # noqa: E402
from . import extra  # noqa: E402
from . import core  # noqa: E402

__all__ = (
    [a for a, _, _ in _DTYPES]
    + ["dtype", "pointer_type", "pi32_t", "constexpr", "tensor", "tensor_descriptor", "block_type", "const", "range",
       "static_range", "cdiv", "math", "extra", "core"]
    + _FUNCTIONS
)
