"""``tilec.language`` — the names Triton kernels and their host code use (``import
tilec.language as tl``): dtypes (``tl.float16``, ...), ``tl.constexpr``, ``tl.tensor``,
``tl.pointer_type`` and the kernel-language functions (``tl.load``, ``tl.arange``, ...).

Kernel bodies are compiled by tilec's C front end, not run in Python; these objects are
what host code and annotations see. Each carries ``__tilec_path__``, its canonical Triton
path (``"triton.language.float16"``), which the module-context builder hands to the
compiler for the kernel's global names.
"""

import builtins
import enum

from . import _stubs
from .. import _C

__tilec_path__ = "triton.language"

# ---- constexpr ------------------------------------------------------------------------

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



# ---- dtypes --------------------------------------------------------------------------

# Triton's dtype names -> (tilec signature spelling, bits, mantissa bits, exponent bias)
_FACTS = {
    "int1": ("i1", 1, None, None), "int8": ("i8", 8, None, None), "int16": ("i16", 16, None, None),
    "int32": ("i32", 32, None, None), "int64": ("i64", 64, None, None), "uint8": ("u8", 8, None, None),
    "uint16": ("u16", 16, None, None), "uint32": ("u32", 32, None, None), "uint64": ("u64", 64, None, None),
    "fp8e4b15": ("fp8e4b15", 8, 3, 15), "fp8e4nv": ("fp8e4nv", 8, 3, 7), "fp8e4b8": ("fp8e4b8", 8, 3, 8),
    "fp8e5": ("fp8e5", 8, 2, 15), "fp8e5b16": ("fp8e5b16", 8, 2, 16), "fp16": ("fp16", 16, 10, 15),
    "bf16": ("bf16", 16, 7, 127), "fp32": ("fp32", 32, 23, 127), "fp64": ("fp64", 64, 52, 1023),
    "void": ("void", 0, None, None),
}


def _unwrap(value):
    while isinstance(value, constexpr):
        value = value.value
    return value


class dtype:
    """A Triton element type, as Triton 3.9's ``tl.dtype``: ``tl.dtype("int8") ==
    tl.int8``; ``name`` is Triton's ("fp16", "int32", ...), the class lists
    (``SINT_TYPES``, ``FP_TYPES``, ...), ``is_*`` predicates, ``kind()``,
    ``primitive_bitwidth``, ``itemsize``, ``int_bitwidth``/``int_signedness`` (integers),
    ``fp_mantissa_width``/``exponent_bias`` (floats), ``codegen_name()``, ``mangle()``."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    class SIGNEDNESS(enum.Enum):
        SIGNED = 0
        UNSIGNED = 1

    class KIND(enum.Enum):
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    def __init__(self, name):
        name = _unwrap(name)
        if not dtype.is_dtype(name):
            raise ValueError(f"tl.dtype({name!r}): not a Triton type name; expected one of "
                             f"{', '.join(dtype.SINT_TYPES + dtype.UINT_TYPES + dtype.FP_TYPES + dtype.OTHER_TYPES)}")
        self.name = name
        _, bits, mantissa, bias = _FACTS[name]
        self.primitive_bitwidth = bits
        self.itemsize = bits // 8
        if name in dtype.SINT_TYPES or name in dtype.UINT_TYPES:
            self.int_signedness = dtype.SIGNEDNESS.SIGNED if name in dtype.SINT_TYPES else dtype.SIGNEDNESS.UNSIGNED
            self.int_bitwidth = bits
        elif name in dtype.FP_TYPES:
            self.fp_mantissa_width = mantissa
            self.exponent_bias = bias
        self.__tilec_path__ = f"triton.language.{self.codegen_name()}"

    @property
    def _attr(self):
        """The tl attribute naming this type ("float16")."""
        return self.codegen_name()

    @property
    def _sig(self):
        """The tilec signature spelling ("fp16", "i32", "u8", "i1")."""
        return _FACTS[self.name][0]

    @staticmethod
    def is_dtype(type_str):
        return isinstance(type_str, str) and type_str in _FACTS

    def is_fp8(self):
        return "fp8" in self.name

    def is_fp8e4nv(self):
        return self.name == "fp8e4nv"

    def is_fp8e4b8(self):
        return self.name == "fp8e4b8"

    def is_fp8e4b15(self):
        return self.name == "fp8e4b15"

    def is_fp8e5(self):
        return self.name == "fp8e5"

    def is_fp8e5b16(self):
        return self.name == "fp8e5b16"

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_int1(self):
        return self.name == "int1"

    def is_int8(self):
        return self.name == "int8"

    def is_int16(self):
        return self.name == "int16"

    def is_int32(self):
        return self.name == "int32"

    def is_int64(self):
        return self.name == "int64"

    def is_uint8(self):
        return self.name == "uint8"

    def is_uint16(self):
        return self.name == "uint16"

    def is_uint32(self):
        return self.name == "uint32"

    def is_uint64(self):
        return self.name == "uint64"

    def is_floating(self):
        return self.name in dtype.FP_TYPES

    def is_standard_floating(self):
        return self.name in dtype.STANDARD_FP_TYPES

    def is_int_signed(self):
        return self.name in dtype.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in dtype.UINT_TYPES

    def is_int(self):
        return self.is_int_signed() or self.is_int_unsigned()

    def is_bool(self):
        return self.is_int1()

    def kind(self):
        """bool < integer < floating point, as Triton orders types for promotion."""
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        if self.is_int():
            return dtype.KIND.INTEGRAL
        if self.is_floating():
            return dtype.KIND.FLOATING
        raise RuntimeError(f"{self.name} has no kind (not a boolean, integer or floating-point type)")

    def get_int_max_value(self):
        if not self.is_int():
            raise RuntimeError(f"{self.name} is not an integer type")
        return 2**(self.int_bitwidth - 1) - 1 if self.is_int_signed() else 2**self.int_bitwidth - 1

    def get_int_min_value(self):
        if not self.is_int():
            raise RuntimeError(f"{self.name} is not an integer type")
        return -2**(self.int_bitwidth - 1) if self.is_int_signed() else 0

    @staticmethod
    def is_void():
        # Triton 3.9 raises here too: a dtype is never asked whether it is void
        raise RuntimeError("Not implemented")

    @staticmethod
    def is_block():
        return False

    @staticmethod
    def is_ptr():
        return False

    @staticmethod
    def is_const():
        return False

    @property
    def scalar(self):
        return self

    def with_element_ty(self, element_ty):
        """The type with `element_ty` as its element type (a scalar type: element_ty)."""
        if self.is_block():
            raise TypeError("with_element_ty of a block type is block_type.with_element_ty")
        return element_ty

    def codegen_name(self):
        """The tl attribute name: fp16 -> float16, bf16 -> bfloat16, int32 -> int32."""
        if self.name.startswith("fp"):
            return "float" + self.name[2:]
        if self.name.startswith("bf"):
            return "bfloat" + self.name[2:]
        return self.name

    @property
    def cache_key_part(self):
        return self.name

    def mangle(self):
        if self.is_int():
            return ("i" if self.int_signedness == dtype.SIGNEDNESS.SIGNED else "u") + str(self.int_bitwidth)
        if self.is_floating():
            return self.name
        if self.name == "void":
            return "V"
        raise NotImplementedError(f"NYI: Type mangling for type {type(self)}")

    def to_ir(self, builder):  # pragma: no cover - Triton API shape only
        raise RuntimeError("tilec compiles kernels in C; there is no Python IR builder")

    def __eq__(self, other):
        other = _unwrap(other)
        return isinstance(other, dtype) and not isinstance(other, (pointer_type, block_type)) \
            and self.name == other.name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.name, ))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"triton.language.{self.codegen_name()}"


class pointer_type(dtype):
    """``tl.pointer_type(tl.float16)``: a pointer to ``element_ty`` (``const=True``: to
    constant data)."""

    def __init__(self, element_ty, address_space="global", const=False):
        element_ty = _unwrap(element_ty)
        if not isinstance(element_ty, dtype):
            raise TypeError(f"element_ty has type `{type(element_ty).__name__}`; expected `dtype`.")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty}>" if not const else f"const_pointer<{element_ty}>"

    @property
    def _attr(self):
        return f"pointer_type({self.element_ty!r})"

    def is_ptr(self):
        return True

    def is_const(self):
        return self.const

    def mangle(self):
        return f"P{self.element_ty.mangle()}"

    def __eq__(self, other):
        other = _unwrap(other)
        return isinstance(other, pointer_type) and self.element_ty == other.element_ty and \
            self.address_space == other.address_space and self.const == other.const

    def __hash__(self):
        return hash(("pointer", self.element_ty, self.address_space, self.const))

    def __str__(self):
        return self.name

    __repr__ = __str__


class block_type(dtype):
    """The type of a tile: ``element_ty`` and ``shape`` (block types exist in compiled
    code; the class is here for annotations and host-side type checks)."""

    def __init__(self, element_ty, shape):
        if not isinstance(shape, (list, tuple, builtins.tuple)):
            raise TypeError(f"block_type: shape must be a list or tuple, got {type(shape).__name__}")
        self.element_ty = element_ty
        self.shape = builtins.tuple(_unwrap(s) for s in _unwrap(shape))
        if not self.shape:
            raise TypeError("0d block_type is forbidden")
        self.numel = _validate_block_shape(self.shape)
        self.name = f"<{self.shape}, {self.element_ty}>"

    @property
    def _attr(self):
        return "block_type"

    def is_block(self):
        return True

    def get_block_shapes(self):
        return self.shape

    def with_element_ty(self, scalar_ty):
        return block_type(scalar_ty, self.shape)

    @property
    def scalar(self):
        return self.element_ty

    @property
    def nbytes(self):
        return self.numel * (self.element_ty.primitive_bitwidth // 8)

    def mangle(self):
        return f"{self.scalar.mangle()}S{'_'.join(map(str, self.shape))}S"

    def __eq__(self, other):
        return isinstance(other, block_type) and self.element_ty == other.element_ty and self.shape == other.shape

    def __hash__(self):
        return hash(("block", self.element_ty, self.shape))

    def __str__(self):
        return self.name

    __repr__ = __str__


# (attribute, Triton name)
_DTYPES = [
    ("int1", "int1"), ("int8", "int8"), ("int16", "int16"), ("int32", "int32"), ("int64", "int64"),
    ("uint8", "uint8"), ("uint16", "uint16"), ("uint32", "uint32"), ("uint64", "uint64"), ("float16", "fp16"),
    ("bfloat16", "bf16"), ("float32", "fp32"), ("float64", "fp64"), ("float8e5", "fp8e5"),
    ("float8e5b16", "fp8e5b16"), ("float8e4nv", "fp8e4nv"), ("float8e4b8", "fp8e4b8"),
    ("float8e4b15", "fp8e4b15"), ("void", "void"),
]
_BY_SIG, _BY_NAME = {}, {}
for _attr, _name in _DTYPES:
    globals()[_attr] = _BY_SIG[_FACTS[_name][0]] = _BY_NAME[_name] = dtype(_name)
del _attr, _name
pi32_t = pointer_type(int32)


def _dtype_from_sig(sig):
    """tilec signature spelling ("fp32", "i1", ...) -> tl dtype, or None."""
    return _BY_SIG.get(sig)


#: The most elements a tile may have (Triton's limit; tilec's front end has the same).
TRITON_MAX_TENSOR_NUMEL = 1048576


def _validate_block_shape(shape):
    """Triton's checks of a block shape: ints, powers of two, at most
    TRITON_MAX_TENSOR_NUMEL elements; returns the element count."""
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got `constexpr[{type(d)}]")
        if d <= 0 or d & (d - 1):
            raise ValueError(f"Shape element {i} must be a power of 2")
        numel *= d
    if numel > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel ({TRITON_MAX_TENSOR_NUMEL})")
    return numel


class PropagateNan(enum.IntEnum):
    """``propagate_nan=`` of tl.minimum / tl.maximum / tl.clamp: ``ALL`` makes a NaN operand
    win, ``NONE`` (the default) leaves NaN handling to the hardware's min/max."""

    NONE = 0
    ALL = 0xFFFF


PropagateNan.__tilec_path__ = "triton.language.PropagateNan"


# ---- tensors, tuples, other classes -------------------------------------------------------

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


class condition:
    """``while tl.condition(c, disable_licm=True):`` — a while loop's condition with
    compiler hints (compiled by tilec inside kernels; a host object here)."""

    __tilec_path__ = "triton.language.condition"

    def __init__(self, arg1, disable_licm=False):
        self.condition = arg1
        self.disable_licm = disable_licm


def cdiv(x, div):
    """``ceil(x / div)`` for integers (also usable from host code)."""
    x = x.value if isinstance(x, constexpr) else x
    div = div.value if isinstance(div, constexpr) else div
    return (x + div - 1) // div


cdiv.__tilec_path__ = "triton.language.cdiv"

class constexpr_type:
    """The type of a compile-time value (``tl.constexpr(3).type``-like host objects)."""

    __tilec_path__ = "triton.language.constexpr_type"

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"constexpr_type[{self.value}]"

    def mangle(self):
        return "c" + (self.value.mangle() if hasattr(self.value, "mangle") else repr(self.value))


class tuple_type:
    """The type of a ``tl.tuple``: its element types (and field names for a namedtuple)."""

    __tilec_path__ = "triton.language.tuple_type"

    def __init__(self, types, fields=None):
        self.types = types
        self.fields = fields

    @property
    def name(self):
        if self.fields is None:
            return "[" + ",".join(str(t) for t in self.types) + "]"
        return "[" + ",".join(f"{k}:{v}" for k, v in zip(self.fields, self.types)) + "]"

    def __str__(self):
        return self.name

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, index):
        return self.types[index]

    def __eq__(self, other):
        return type(self) is type(other) and self.types == other.types and self.fields == other.fields

    def __hash__(self):
        return hash((builtins.tuple(self.types), self.fields and builtins.tuple(self.fields)))

    def mangle(self):
        return "T" + "_".join(t.mangle() for t in self.types) + "T"


def _type_of(value):
    if isinstance(value, (int, float, dtype)):
        return constexpr_type(value)
    return getattr(value, "type", constexpr_type(value))


class tuple:  # noqa: A001 - Triton's name
    """``tl.tuple``: Triton's tuple of kernel values. Inside kernels tuples are compiled by
    tilec (``isinstance(x, tl.tuple)`` works there); on the host this is a sequence of
    values with a ``type`` (a ``tuple_type``)."""

    __tilec_path__ = "triton.language.tuple"

    def __init__(self, args, type=None):  # noqa: A002 - Triton's parameter name
        self.values = list(args)
        if isinstance(type, tuple_type):
            self.type = type
        elif type is not None:
            self.type = tuple_type(type)
        else:
            self.type = tuple_type([_type_of(v) for v in self.values])

    def __getitem__(self, idx):
        idx = _unwrap(idx)
        if isinstance(idx, builtins.slice):
            return tuple(self.values[idx])
        return self.values[idx]

    def __getattr__(self, name):
        fields = self.__dict__.get("type") and self.type.fields
        if not fields or name not in fields:
            raise AttributeError(f"'tuple' object has no attribute {name}")
        return self.values[fields.index(name)]

    def __add__(self, other):
        other = other if isinstance(other, tuple) else tuple(_unwrap(other))
        return tuple(self.values + other.values)

    def __mul__(self, other):
        return tuple(self.values * _unwrap(other))

    def __eq__(self, other):
        other = other if isinstance(other, tuple) else tuple(_unwrap(other))
        return constexpr(self.values == other.values)

    def __hash__(self):
        return hash(builtins.tuple(self.values))

    def __iter__(self):
        return iter(self.values)

    def __len__(self):
        return len(self.values)

    def __str__(self):
        return str([str(x) for x in self.values])

    def __repr__(self):
        return f"({', '.join(repr(x) for x in self.values)})"


class slice:  # noqa: A001 - Triton's name
    """``tl.slice(start, stop, step)``: a slice of a ``tl.tuple``."""

    __tilec_path__ = "triton.language.slice"

    def __init__(self, start, stop, step):
        self.start = start
        self.stop = stop
        self.step = step


class tensor_descriptor_type:
    """The type of a tensor descriptor: its block type and the types of its shape and
    strides (``str_to_ty("tensordesc<fp32[16, 32]>")``)."""

    __tilec_path__ = "triton.language.tensor_descriptor_type"

    def __init__(self, block_type, shape_type, strides_type):  # noqa: F811 - Triton's parameter name
        self.block_type = block_type
        self.shape_type = shape_type
        self.strides_type = strides_type

    def __eq__(self, other):
        return type(other) is type(self) and self.block_type == other.block_type and \
            self.shape_type == other.shape_type and self.strides_type == other.strides_type

    def __hash__(self):
        return hash(("tensordesc", self.block_type))

    def __str__(self):
        return f"tensor_descriptor<{self.block_type}>"

    def mangle(self):
        return f"TD{self.block_type.mangle()}"


# Triton's short type strings (signatures: "*fp32", "i32", "u1") -> types
_SHORT = {
    "fp8e4nv": "fp8e4nv", "fp8e4b8": "fp8e4b8", "fp8e5": "fp8e5", "fp8e5b16": "fp8e5b16",
    "fp8e4b15": "fp8e4b15", "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64", "i1": "int1",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u1": "int1", "u8": "uint8", "u16": "uint16",
    "u32": "uint32", "u64": "uint64", "B": "int1",
}


def str_to_ty(name, c):
    """Triton's parser of its signature type strings: ``"*fp32"`` (``"*kfp16"``: to
    constant data) -> pointer_type, ``"i32"`` -> tl.int32, ``"tensordesc<fp16[16, 32]>"`` ->
    tensor_descriptor_type, ``"constexpr"`` -> constexpr_type(c), a tuple of strings ->
    tuple_type."""
    if isinstance(name, builtins.tuple):
        return tuple_type([str_to_ty(x, c) for x in name], type(name).__dict__.get("_fields"))
    if not isinstance(name, str) or not name:
        raise TypeError(f"str_to_ty: expected a type string such as '*fp32' or 'i32', got {name!r}")
    if name[0] == "*":
        name = name[1:]
        is_const = name.startswith("k")
        return pointer_type(str_to_ty(name[1:] if is_const else name, c), const=is_const)
    if name.startswith("tensordesc"):
        inner = name.split("<", 1)[1].rstrip(">")
        elem, rest = inner.split("[", 1)
        shape_text, layout = rest.split("]", 1)
        if layout.strip(", "):
            raise NotImplementedError(f"str_to_ty({name!r}): tensor descriptors with a GPU shared-memory "
                                      "layout (Gluon) are not supported by tilec")
        block_shape = [int(x.strip()) for x in shape_text.split(",")]
        ndim = len(block_shape)
        return tensor_descriptor_type(block_type(str_to_ty(elem, None), block_shape), tuple_type([int32] * ndim),
                                      tuple_type([int64] * ndim))
    if name.startswith("constexpr"):
        return constexpr_type(c)
    return _BY_NAME[_SHORT[name]]


def aggregate_replace(instance, **changes):
    """A copy of an ``@triton.aggregate`` instance with the given fields replaced (Triton's
    dataclasses.replace for aggregates). tilec does not support aggregates (see
    ``triton.aggregate``), so every instance is refused as in Triton for non-aggregates."""
    if not getattr(type(instance), "__triton_aggregate__", False):
        raise TypeError(f"aggregate_replace() expects an aggregate instance, got {type(instance)}")
    fields = type(instance).__aggregate_fields__
    for name in changes:
        if name not in fields:
            raise TypeError(f"{type(instance).__name__} has no field '{name}'")
    kwargs = {name: getattr(instance, name) for name in fields}
    kwargs.update(changes)
    return type(instance)(**kwargs)


str_to_ty.__tilec_path__ = "triton.language.str_to_ty"
aggregate_replace.__tilec_path__ = "triton.language.aggregate_replace"

# ---- kernel-language functions -------------------------------------------------------------
# Host-side stand-ins (tilec.language._stubs). Two sources, and a test
# (tests/python/test_language_registry.py) checks they agree: Triton 3.9's names of
# triton.language (the API host code imports), and the compiler's own table of the functions
# it knows (_C.language_functions(): the front end's builtin registry and prelude), so every
# tl.NAME the compiler compiles can also be imported from here.

_TRITON_FUNCTIONS = """
abs add advance arange argmax argmin associative_scan assume atomic_add atomic_and atomic_cas
atomic_load atomic_max atomic_min atomic_or atomic_poll atomic_store atomic_xchg atomic_xor
bitonic_merge broadcast broadcast_to cast cat ceil clamp condition cos cumprod cumsum
debug_barrier device_assert device_print div_rn dot dot_scaled erf exp exp2 expand_dims
expect_zero fdiv flip floor fma full gather histogram inline_asm_elementwise interleave join load
load_tensor_descriptor log log2 make_block_ptr make_tensor_descriptor map_elementwise max
max_constancy max_contiguous maximum min minimum mul multiple_of num_programs
pair_uniform_to_normal permute philox philox_impl program_id rand rand4x randint randint4x randn
randn4x ravel reduce reduce_or reshape rsqrt sigmoid sin softmax sort split sqrt sqrt_rn squeeze
static_assert static_print store store_tensor_descriptor sub sum swizzle2d to_tensor topk trans
uint_to_uniform_float umulhi unsqueeze view where xor_sum zeros zeros_like
""".split()

#: The compiler's functions: (name, group, refusal or None); group is the front end's
#: registry family ("core", "math", "tile", ...) or "prelude".
COMPILER_FUNCTIONS = _C.language_functions()


def _refusal(name):
    for n, _, why in COMPILER_FUNCTIONS:
        if n == name:
            return why
    return None


_FUNCTIONS = sorted(set(_TRITON_FUNCTIONS) | {n for n, g, _ in COMPILER_FUNCTIONS if g != "prelude"}
                    | {n for n, g, _ in COMPILER_FUNCTIONS if g == "prelude" and n in _TRITON_FUNCTIONS})
_stubs.export_stubs(globals(), "triton.language", _FUNCTIONS, refusal=_refusal)

from . import math  # noqa: E402
from . import extra  # noqa: E402
from . import core  # noqa: E402
from ._constexpr_ops import install as _install_constexpr_ops  # noqa: E402
_install_constexpr_ops(constexpr)  # host-side < + - ... as Triton's constexpr has them
from . import target_info  # noqa: E402

math.core = core  # as Triton's math module has it

__all__ = (
    [a for a, _ in _DTYPES]
    + ["dtype", "pointer_type", "pi32_t", "constexpr", "constexpr_type", "tensor", "tensor_descriptor",
       "tensor_descriptor_type", "block_type", "const", "range", "static_range", "condition", "tuple", "tuple_type", "slice",
       "cdiv", "str_to_ty", "aggregate_replace", "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "math", "extra",
       "core", "target_info"]
    + [n for n in _FUNCTIONS if n not in ("range", "static_range", "pointer_type", "cdiv", "condition")]
)
