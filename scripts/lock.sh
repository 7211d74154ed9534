#!/usr/bin/env bash
# The image's lock file: every distribution the action installs, pinned with its hashes.
#
#   bash scripts/lock.sh           regenerate requirements/image.lock from pyproject.toml
#   bash scripts/lock.sh --check   fail when the lock no longer matches pyproject.toml
#   bash scripts/lock.sh --upgrade move every unpinned dependency to its newest release
#
# Inputs: pyproject.toml's runtime dependencies, plus requirements/build.in (the build backend,
# so the Dockerfile builds the package itself offline from hashed wheels). The image is
# Linux x86_64 on CPython 3.11. uv keeps the versions already in the lock unless asked to
# upgrade, so --check only fails when pyproject.toml or build.in changed without a new lock.
# uv is pinned in the `test` extra of pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${UV:-}" ]; then
    if [ -n "${VIRTUAL_ENV:-}" ]; then UV="$VIRTUAL_ENV/bin/uv"; else UV=.venv/bin/uv; fi
fi
lock=requirements/image.lock
compile() {  # compile OUTPUT [extra uv flags]
    local output=$1; shift
    "$UV" pip compile pyproject.toml requirements/build.in --quiet --generate-hashes \
        --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
        --index-url https://pypi.org/simple --no-header --annotation-style line \
        --output-file "$output" "$@"
}

case "${1:-}" in
    --check)
        fresh=$(mktemp)
        trap 'rm -f "$fresh"' EXIT
        cp "$lock" "$fresh"  # the current pins are uv's preferences
        compile "$fresh"
        if ! diff -u "$lock" "$fresh"; then
            echo "lock: $lock does not match pyproject.toml; run: bash scripts/lock.sh" >&2
            exit 1
        fi
        echo "lock: $lock matches pyproject.toml ($(grep -c '==' "$lock") pins, all hashed)"
        ;;
    --upgrade) compile "$lock" --upgrade ;;
    "") compile "$lock" ;;
    *) echo "usage: scripts/lock.sh [--check|--upgrade]" >&2; exit 2 ;;
esac
