#!/usr/bin/env bash
# Installs every Debian package poot's build, tests and examples need, plus the
# Python references used by tests into .venv. Safe to run again.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config python3 python3-venv
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools lld-19
  libfmt-dev libgtest-dev
  clang-14 libclang-rt-14-dev
  libvulkan-dev mesa-vulkan-drivers spirv-tools glslang-tools
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev libffi-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -ne 0 ]; then
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Python references for tests (never on the product's run path).
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${POOT_SKIP_PY:-0}" != "1" ]; then
  PY=python3
  if [ ! -x "$ROOT/.venv/bin/python" ]; then
    "$PY" -m venv "$ROOT/.venv"
  fi
  if ! "$ROOT/.venv/bin/python" -c "import numpy, ml_dtypes" 2>/dev/null; then
    "$ROOT/.venv/bin/pip" install --quiet numpy ml-dtypes
  fi
  # The ONNX front end's tests: onnx builds the test models, onnxruntime
  # is the reference their outputs are compared with.
  if ! "$ROOT/.venv/bin/python" -c "import onnx, onnxruntime" 2>/dev/null; then
    "$ROOT/.venv/bin/pip" install --quiet onnx onnxruntime
  fi
fi
