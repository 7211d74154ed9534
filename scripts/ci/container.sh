#!/usr/bin/env bash
# Build the action's image from the unmodified Dockerfile and run the end-to-end tests in it,
# the way the Actions runner runs a Docker action (tests/github/test_gh_container.py).
#
# No Docker engine or Docker Hub is needed: Debian's buildah builds the image, podman runs it,
# and the Dockerfile's base image is replaced (--build-arg BASE_IMAGE) by a stand-in built
# from Debian's packages (scripts/ci/container_base.sh). The engine settings this VM needs
# are in scripts/ci/container/containers.conf, never in /etc.
#
# Where the container tools cannot be installed, it says so loudly and exits 0; any other
# failure, a test skipped included, fails it.
set -euo pipefail
cd "$(dirname "$0")/../.."

export CONTAINERS_CONF="$PWD/scripts/ci/container/containers.conf"
base=localhost/code-guard-base:bookworm
image=localhost/code-guard:ci
skip() {
    printf '\n%s\n%s\n%s\n\n' "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" \
        "!!! CONTAINER TESTS SKIPPED: $1" \
        "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
    exit 0
}
seconds() { echo $(( $(date +%s) - $1 )); }

echo "container: tools (buildah, podman, runc, debootstrap, elfutils)"
needed=()
for tool in buildah podman runc debootstrap; do
    command -v "$tool" >/dev/null || needed+=("$tool")
done
if [ ${#needed[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then skip "${needed[*]} missing and not root to install them"; fi
    apt-get update -qq >/dev/null 2>&1 || skip "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        buildah podman runc debootstrap uidmap ca-certificates >/dev/null 2>&1 \
        || skip "apt-get could not install ${needed[*]}"
fi
podman info >/dev/null 2>&1 || skip "podman cannot start here: $(podman info 2>&1 | tail -1)"

start=$(date +%s)
echo "container: base image stand-in ($base)"
bash scripts/ci/container_base.sh "$base"
echo "container: base ready in $(seconds "$start") s"

start=$(date +%s)
echo "container: buildah bud (the Dockerfile, unmodified; BASE_IMAGE=$base)"
secret=()
# Behind a TLS-inspecting proxy, pip in the build needs the host's CA bundle: a build secret,
# mounted for the install step only, never in a layer.
for bundle in "${PIP_CERT:-}" "${REQUESTS_CA_BUNDLE:-}"; do
    if [ -n "$bundle" ] && [ -s "$bundle" ]; then secret=(--secret "id=pip-ca,src=$bundle"); break; fi
done
log=$(mktemp)
if ! buildah bud --pull=never --network host --layers -f Dockerfile \
        --build-arg "BASE_IMAGE=$base" "${secret[@]}" -t "$image" . >"$log" 2>&1; then
    tail -40 "$log"
    echo "container: the image did not build" >&2
    exit 1
fi
grep -E '^\[[0-9]/[0-9]\] STEP' "$log" | cut -c1-110
rm -f "$log"
echo "container: built in $(seconds "$start") s"
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image"
podman run --rm --entrypoint sh "$image" -c \
    'test ! -e /run/secrets/pip-ca && echo "container: no build secret left in the image"'

start=$(date +%s)
echo "container: end-to-end tests in the image (review and eval mode)"
report=$(mktemp)
CODE_GUARD_IMAGE="$image" python -m pytest tests/github/test_gh_container.py -rs -p no:cacheprovider \
    | tee "$report"
if grep -q "skipped" "$report"; then
    echo "container: a container test was skipped; in CI they must run" >&2
    exit 1
fi
echo "container: tests done in $(seconds "$start") s"
