# lit configuration of the xlite text-in/text-out tests.
# The xlite binary is found through `--param xlite_bin_dir=DIR` or the
# XLITE_BIN_DIR environment variable; FileCheck and not come from LLVM 19.
import os
import subprocess
import sys

import lit.formats

config.name = "xlite"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

xlite_bin_dir = lit_config.params.get("xlite_bin_dir") or os.environ.get("XLITE_BIN_DIR")
if not xlite_bin_dir:
    lit_config.fatal("set --param xlite_bin_dir=<build>/xlite/tools or XLITE_BIN_DIR")
xlite = os.path.join(os.path.abspath(xlite_bin_dir), "xlite")
if not os.access(xlite, os.X_OK):
    lit_config.fatal(f"no xlite binary at {xlite}")
# `REQUIRES: cpu-backend` tests need a build with LLVM and OpenBLAS.
passes = subprocess.run([xlite, "opt", "--list-passes"], capture_output=True, text=True).stdout
if "cpu-loop-fusion" in passes:
    config.available_features.add("cpu-backend")
# `REQUIRES: lapack` tests need a build with LAPACKE (JAX's LAPACK calls).
probe = subprocess.run([xlite, "run", os.path.join(config.test_source_root, "run",
                        "lapack_unavailable.hlo"), "--backend", "interpreter"],
                       capture_output=True, text=True)
if "built without LAPACK" not in probe.stderr:
    config.available_features.add("lapack")
# `REQUIRES: cbc` tests need auto-sharding's ILP solver (the heuristic alone
# may find other plans).
probe = subprocess.run([xlite, "autoshard", os.path.join(os.path.dirname(os.path.dirname(config.test_source_root)), "examples", "mlp.hlo"),
                        "--mesh", "1", "--json"], capture_output=True, text=True)
if probe.returncode == 0 and "CBC not built in" not in probe.stdout:
    config.available_features.add("cbc")
# `REQUIRES: ml-dtypes` tests need a Python with numpy and ml_dtypes (JAX's
# venv has them): `--param numpy_python=PATH` where that exists, else the one
# running lit.
numpy_python = lit_config.params.get("numpy_python", "")
if not os.access(numpy_python, os.X_OK):
    numpy_python = sys.executable
if subprocess.run([numpy_python, "-c", "import numpy, ml_dtypes"],
                  capture_output=True).returncode == 0:
    config.available_features.add("ml-dtypes")
# `REQUIRES: chromium` tests render what xlite draws in headless Chromium
# (scripts/install-deps.sh browser installs it).
import shutil
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))
llvm_bin_dir = lit_config.params.get("llvm_bin_dir", "/usr/lib/llvm-19/bin")
if not os.access(os.path.join(llvm_bin_dir, "FileCheck"), os.X_OK):
    lit_config.fatal(f"no FileCheck in {llvm_bin_dir} (install llvm-19-tools)")

config.environment["PATH"] = os.pathsep.join(
    [llvm_bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Sanitizer builds run the tests too; a leak or UB report must fail them.
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

source_root = os.path.dirname(os.path.dirname(config.test_source_root))
config.substitutions.append(("%xlite", xlite))
config.substitutions.append(("%examples", os.path.join(source_root, "examples")))
config.substitutions.append(
    ("%testdata", os.path.join(source_root, "xlite", "runtime", "testdata")))
config.substitutions.append(("%numpy_python", numpy_python))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%expect_exit", f"{sys.executable} {os.path.join(config.test_source_root, 'expect_exit.py')}"))
