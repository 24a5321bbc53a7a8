"""Triton's operators on ``tl.constexpr`` objects in host code: ``tl.constexpr(3) < 4``,
``BLOCK * 2``, ``-c`` (Triton 3.9's ``constexpr`` returns a ``constexpr`` of the Python
result, unwrapping a ``constexpr`` operand).

In: the constexpr class of tilec.language. Out: the class with each operator it does not
define itself.
"""

import operator


def _unwrap(v):
    return v.value if hasattr(v, "value") and type(v).__name__ == "constexpr" else v


def _binary(op, reflected=False):
    def method(self, other):
        a, b = self.value, _unwrap(other)
        return type(self)(op(b, a) if reflected else op(a, b))
    return method


def _unary(op):
    def method(self):
        return type(self)(op(self.value))
    return method


_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift,
}
_COMPARE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "ne": operator.ne}
_REFLECTED_COMPARE = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def install(cls):
    """Adds Triton's constexpr operators to cls, keeping any the class defines."""
    methods = {}
    for name, op in _BINARY.items():
        methods[f"__{name}__"] = _binary(op)
        methods[f"__r{name}__"] = _binary(op, reflected=True)
    for name, op in _COMPARE.items():
        methods[f"__{name}__"] = _binary(op)
    for name, mirror in _REFLECTED_COMPARE.items():  # Triton spells these out too
        methods[f"__r{name}__"] = _binary(_COMPARE[mirror])
    methods["__neg__"] = _unary(operator.neg)
    methods["__pos__"] = _unary(operator.pos)
    methods["__invert__"] = _unary(operator.invert)
    methods["logical_and"] = lambda self, other: cls(self.value and _unwrap(other))
    methods["logical_or"] = lambda self, other: cls(self.value or _unwrap(other))
    methods["__iter__"] = lambda self: iter(self.value)
    methods["__getitem__"] = lambda self, *args: self.value.__getitem__(*(_unwrap(a) for a in args))
    for name, fn in methods.items():
        if name not in cls.__dict__:
            setattr(cls, name, fn)
    return cls
