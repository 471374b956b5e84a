# lit configuration of poot's IR and tool tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "poot"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.poot_obj_root, "test", "lit")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(config.poot_src_root, "examples")))
llvm_config.use_default_substitutions()

tool_dirs = [
    os.path.join(config.poot_tools_dir, "poot-opt"),
    os.path.join(config.poot_tools_dir, "poot-run"),
    os.path.join(config.poot_tools_dir, "poot-trace"),
    os.path.join(config.poot_tools_dir, "poot-compile"),
    os.path.join(config.poot_tools_dir, "poot-run-plan"),
    os.path.join(config.poot_tools_dir, "poot-import-onnx"),
    config.llvm_tools_dir,
]
llvm_config.add_tool_substitutions(["poot-opt", "poot-run", "poot-trace", "poot-compile", "poot-run-plan", "poot-import-onnx"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas assembles emitted PTX where a CUDA toolkit is installed.
import shutil
_ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("ptxas", _ptxas))

# Devices of this machine, for the tests that plan against a live device:
# "vulkan" when poot-compile can read a Vulkan device's facts (lavapipe in
# CI), "cuda-driver" when the CUDA driver library loads.
import ctypes
import subprocess
_compile = os.path.join(config.poot_tools_dir, "poot-compile", "poot-compile")
_probe = os.path.join(config.test_source_root, "Tools", "Inputs", "constants.mlir")
if os.path.exists(_compile) and subprocess.run(
        [_compile, _probe, "--target=vulkan", "--device-from-host", "--emit=ir",
         "--quiet", "-o", os.devnull],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("vulkan")
    # "vulkan-int64" when that device also has 64-bit integers
    # (shaderInt64), so graphs holding i64 values plan and run on it.
    _probe64 = os.path.join(config.test_source_root, "Tools", "Inputs", "int64.mlir")
    if subprocess.run(
            [_compile, _probe64, "--target=vulkan", "--device-from-host", "--emit=ir",
             "--quiet", "-o", os.devnull],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("vulkan-int64")
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# ld.lld links AMDGPU code objects (Debian package lld-19); without it the
# ROCm targets still emit assembly, and the code-object tests skip.
_lld = shutil.which("ld.lld-19") or shutil.which("ld.lld") or (
    "/usr/lib/llvm-19/bin/ld.lld" if os.path.exists("/usr/lib/llvm-19/bin/ld.lld") else None)
if _lld:
    config.available_features.add("ld.lld")

# The HIP runtime, where ROCm is installed: the tests of the hip device's
# refusal on machines without it do not apply there.
import ctypes.util
if ctypes.util.find_library("amdhip64"):
    config.available_features.add("hip-runtime")
