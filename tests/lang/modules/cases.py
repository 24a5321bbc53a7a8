"""Cases of the lang family 'modules': names resolved through the kernel's module (imports,
globals, sibling files) (its kernels are in modules/kernels.py)."""
import math
import os
import subprocess

import numpy as np

import harness
from harness import DIAG_RE, add, diag, func, line_of, path_of, rng, run_tilec


def _bf16(a):
    """fp32 -> bf16 (round to nearest even) -> fp32, as numpy has no bfloat16."""
    b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def cases():
    F = "modules"
    K = "modules/kernels.py"
    n = 100
    x = rng(90).standard_normal(n).astype(np.float32)
    log2e = np.float32(np.log2(np.e))
    add(F, "constexpr_dtype_globals_default_block", K, "constexpr_globals_kernel", (2,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float32), n=n), ["out_ptr"],
        lambda a: {"out_ptr": (a["x_ptr"] * np.float32(2.5) + np.float32(1e-6)) ** 2 + log2e},
        rtol=1e-6, atol=1e-6)
    xp = rng(91).uniform(0.5, 3.0, n).astype(np.float32)
    erf = np.vectorize(math.erf)

    def ld_ref(a):
        v = a["x_ptr"].astype(np.float64)
        r = 1 / np.sqrt(v) + 2 * np.exp(-v) + 2 * np.sqrt(v) + np.tanh(v) + erf(v) + np.log1p(v) + np.log(v)
        return {"out_ptr": r}
    add(F, "libdevice_by_name_module_cuda_path_fallbacks", K, "libdevice_forms_kernel", (4,),
        dict(x_ptr=xp, out_ptr=np.zeros(n, np.float32), n=n, BLOCK=32), ["out_ptr"], ld_ref,
        rtol=1e-5, atol=1e-5)
    add(F, "dtype_globals_zeros_and_to", K, "dtype_globals_kernel", (4,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float16), n=n, BLOCK=32), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"].astype(np.float16)})
    add(F, "sibling_module_helpers_own_globals", K, "sibling_helpers_kernel", (4,),
        dict(x_ptr=x, out_ptr=np.zeros(n, np.float32), n=n), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 3 + 1 + 2 * a["x_ptr"] + 0.25}, rtol=1e-6, atol=1e-6)
    xd = (rng(92).standard_normal(n) * 10).astype(np.float32)
    dtype_cases = [
        ("fp16", "tl.float16", lambda v: (v.astype(np.float16) + np.float16(1)).astype(np.float32), [16, 5, 16]),
        ("bf16", "triton.language.bfloat16", lambda v: _bf16(_bf16(v) + np.float32(2)), [16, 6, 16]),
        ("fp32", "tl.float32", lambda v: v + np.float32(3), [32, 4, 32]),
        ("int32", "tl.int32", lambda v: (np.trunc(v).astype(np.int32) + 3).astype(np.float32), [32, 8, 32]),
    ]
    for tag, dt, fn, info in dtype_cases:
        add(F, "dtype_constexpr_param_" + tag, K, "dtype_param_kernel", (4,),
            dict(x_ptr=xd, out_ptr=np.zeros(n, np.float32), info_ptr=np.zeros(3, np.int32), n=n, BLOCK=32,
                 DT=dt), ["out_ptr", "info_ptr"],
            lambda a, fn=fn, info=info: {"out_ptr": fn(a["x_ptr"]), "info_ptr": np.array(info, np.int32)})
    add(F, "tuple_constexpr_param", K, "tuple_param_kernel", (1,),
        dict(out_ptr=np.zeros(4, np.int32), SHAPE="(2, 3)"), ["out_ptr"],
        lambda a: {"out_ptr": np.array([2, 3, 2, 5], np.int32)})
    add(F, "tuple_constexpr_param_list", K, "tuple_param_kernel", (1,),
        dict(out_ptr=np.zeros(4, np.int32), SHAPE="[4, 5, 6]"), ["out_ptr"],
        lambda a: {"out_ptr": np.array([4, 5, 3, 15], np.int32)})
    add(F, "plain_global_in_parameter_default", K, "plain_default_kernel", (1,),
        dict(out_ptr=np.zeros(1, np.int32)), ["out_ptr"], lambda a: {"out_ptr": np.array([6], np.int32)})
    xi8 = np.clip(rng(93).standard_normal(16) * 40, -120, 120).astype(np.float32)
    add(F, "unannotated_dtype_and_tuple_params", K, "unannotated_dtype_tuple_kernel", (1,),
        dict(x_ptr=xi8, out_ptr=np.zeros(16, np.float32), DT="tl.int8", S="(1, 10)"), ["out_ptr"],
        lambda a: {"out_ptr": np.trunc(a["x_ptr"]).astype(np.int64).astype(np.int8).astype(np.float32) + 10})
    plain = "Cannot access global variable %s from within @jit'ed function"
    diag(F, "plain_global_refused", K, "plain_global_kernel", "*i32", expect=(plain % "PLAIN_N",),
         line="tl.store(out_ptr, PLAIN_N)")
    diag(F, "annotated_global_refused", K, "annotated_global_kernel", "*i32",
         expect=(plain % "ANNOTATED", "annotating a variable as constexpr"), line="tl.store(out_ptr, ANNOTATED)")
    diag(F, "host_value_global", K, "host_value_kernel", "*i32",
         expect=("'DEVICE'", "line %d" % line_of(K, "DEVICE = torch.device")),
         line="tl.store(out_ptr, DEVICE)")
    diag(F, "host_module_attribute", K, "host_module_kernel", "*fp32", expect=("module 'torch'",),
         line="tl.store(out_ptr + tl.arange")
    diag(F, "host_function_call", K, "host_function_kernel", "*i32",
         expect=("'host_helper'", "not a @triton.jit function"), line="tl.store(out_ptr, host_helper")
    diag(F, "unknown_libdevice_import", K, "unknown_libdevice_kernel", "*fp32",
         expect=("not_a_libdevice_function", "line %d" % line_of(K, "import not_a_libdevice_function"),
                 "is not supported"),
         line="tl.store(x_ptr")
    add(F, "python_math_module", K, "python_math_kernel", (1,), dict(out_ptr=np.zeros(1, np.float32)), ["out_ptr"],
        lambda a: {"out_ptr": np.array([2 * math.pi + 3 + math.pi * 2], np.float32)}, rtol=1e-6)
    xs = rng(94).standard_normal(64).astype(np.float32)

    def strided_ref(a):
        x, r = a["x_ptr"].astype(np.float64), np.arange(16)
        dense = np.where(r < 13, x[:16], 0) * 2.0
        every2 = np.where(r < 13, x[0:32:2], 0) * -1.0
        return {"out_ptr": np.where(r < 13, dense + every2 + 1 + 4, -7)}
    add(F, "namedtuple_class_of_the_file", K, "namedtuple_class_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.full(16, -7, np.float32), n=13, BLOCK=16), ["out_ptr"], strided_ref,
        rtol=1e-6, atol=1e-6)
    diag(F, "host_class_refused", K, "host_class_kernel", "*fp32",
         expect=("'HostOnly'", "line %d" % line_of(K, "class HostOnly"), "NamedTuple"),
         line="tl.store(out_ptr, HostOnly())")
    diag(F, "namedtuple_default_order", K, "late_default_kernel", "*i32",
         expect=("'LateDefault'", "field 'b'", "no default"), line="tl.store(out_ptr, LateDefault")
    diag(F, "plain_float_from_math_import", K, "plain_math_import_kernel", "*fp32",
         expect=(plain % "PI_VALUE",), line="tl.store(out_ptr, PI_VALUE)")
    diag(F, "name_from_host_package", K, "host_package_import_kernel", "*fp32",
         expect=("'host_util'", "line %d" % line_of(K, "import host_util"), "some_host_package.utils"),
         line="tl.store(out_ptr, host_util")
    xs = rng(94).standard_normal(16).astype(np.float32)
    add(F, "package_absolute_and_relative_imports", "modules/modpkg/sub/pkg_kernel.py", "package_imports_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float32), BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": 4 * (a["x_ptr"] * 3 + 0.5)}, rtol=1e-6, atol=1e-6)
    add(F, "host_triton_import_try_body_taken", K, "host_triton_import_kernel", (1,),
        dict(out_ptr=np.zeros(1, np.int32)), ["out_ptr"], lambda a: {"out_ptr": np.array([1], np.int32)})
    add(F, "version_check_equivalent_apis", K, "version_check_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(16, np.float16), BLOCK=16), ["out_ptr"],
        lambda a: {"out_ptr": np.tanh(a["x_ptr"]).astype(np.float16)}, rtol=1e-3, atol=1e-3)
    diag(F, "host_condition_differing_constants", K, "host_condition_constant_kernel", "*i32",
         expect=("'BLOCK_BY_DEVICE'", "branches of the `if` at line %d" % line_of(K, "if torch.cuda.is_available()")),
         line="def host_condition_constant_kernel")
    func(F, "error_in_sibling_helper_located_there", lambda: _diag_in_file(
        K, "helper_error_kernel", "*fp32", "modules_helpers.py",
        line_of("modules/modules_helpers.py", "NOT_DEFINED_IN_HELPERS"), "NOT_DEFINED_IN_HELPERS"))
    func(F, "allow_non_constexpr_globals_env", _allow_plain_globals)


def _diag_in_file(file, kernel, sig, want_file, want_line, want_text):
    rc, out, err = run_tilec([harness.TILEC, "compile", path_of(file), "-k", kernel, "-s", sig,
                              "--emit", "tile"], harness.LANG_DIR, 60)
    first = (err.splitlines() or [""])[0]
    m = DIAG_RE.match(first)
    if rc != 1 or not m:
        return "exit status %s, first line %r" % (rc, first)
    if not m.group(1).endswith(want_file) or int(m.group(2)) != want_line or want_text not in first:
        return "expected %s:%d with %r, got %r" % (want_file, want_line, want_text, first)
    return None


def _allow_plain_globals():
    env = dict(os.environ, TRITON_ALLOW_NON_CONSTEXPR_GLOBALS="1")
    p = subprocess.run([harness.TILEC, "compile", path_of("modules/kernels.py"), "-k", "plain_global_kernel",
                        "-s", "*i32", "--emit", "tile"], cwd=harness.LANG_DIR, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    text = p.stdout.decode()
    if p.returncode != 0:
        return "exit status %d: %s" % (p.returncode, p.stderr.decode()[:300])
    if "arith.constant 3 : i32" not in text:
        return "PLAIN_N (3) not in the IR"
    return None
