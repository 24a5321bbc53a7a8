# lit configuration for tilec's IR tests: each test runs `tilec opt` or `tilec compile
# --emit` and checks the printed IR with FileCheck.
import os
import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_binary_dir, "tests", "lit")
config.environment["PATH"] = os.pathsep.join(
    [config.tilec_binary_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%tilec", os.path.join(config.tilec_binary_dir, "tilec")))

# Host CPU features some tests need (`REQUIRES: avx512vnni`, `avx512bf16`): tests of code generated for
# the host are unsupported, not failed, on a machine without the feature.
try:
    with open("/proc/cpuinfo") as f:
        _flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
except OSError:
    _flags = []
if "avx512_vnni" in _flags and "avx512f" in _flags:
    config.available_features.add("avx512vnni")
if "avx512_bf16" in _flags and "avx512f" in _flags:
    config.available_features.add("avx512bf16")

# NVIDIA's tools for the nvptx target's tests: ptxas (the CUDA toolkit or PyPI's
# nvidia-cuda-nvcc-cu12) assembles the PTX tilec prints; libdevice provides the math
# functions. Tests that need them say `REQUIRES: ptxas` / `REQUIRES: libdevice`.
import shutil

_ptxas = shutil.which("ptxas") or next((p for p in ["/usr/local/cuda/bin/ptxas"] if os.access(p, os.X_OK)), None)
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
_libdevice = [os.environ.get("TILEC_LIBDEVICE", ""), "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
              "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc", "/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc"]
if os.environ.get("CUDA_HOME"):
    _libdevice.append(os.path.join(os.environ["CUDA_HOME"], "nvvm", "libdevice", "libdevice.10.bc"))
if any(p and os.access(p, os.R_OK) for p in _libdevice):
    config.available_features.add("libdevice")
if os.environ.get("TILEC_LIBDEVICE"):
    config.environment["TILEC_LIBDEVICE"] = os.environ["TILEC_LIBDEVICE"]
