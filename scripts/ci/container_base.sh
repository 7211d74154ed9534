#!/usr/bin/env bash
# Build a stand-in for the Dockerfile's base image (python:3.11-slim-bookworm) from Debian's
# packages, for CI machines that cannot reach Docker Hub, and import it into podman's storage.
#
#   bash scripts/ci/container_base.sh IMAGE_NAME
#
# debootstrap --variant=minbase bookworm, plus python3, python3-venv and ca-certificates, with
# /usr/local made a virtual environment so `python` and `pip` resolve on PATH as they do in
# the official image. Only CI uses it; releases are built on the digest-pinned official image.
set -euo pipefail

image=${1:?usage: container_base.sh IMAGE_NAME}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if podman image exists "$image"; then
    echo "container_base: $image already in storage, reused"
    exit 0
fi
rootfs=$(mktemp -d /var/tmp/code-guard-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT

echo "container_base: debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || { tail -20 "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"

echo "container_base: /usr/local as a virtual environment"
chroot "$rootfs" python3 -m venv --without-pip /usr/local
# pip from Debian's python3-venv wheel, so the venv has pip without reaching PyPI here.
chroot "$rootfs" sh -c 'python3 -m venv --upgrade-deps /usr/local >/dev/null 2>&1 ||
    /usr/local/bin/python -m ensurepip --default-pip >/dev/null'
chroot "$rootfs" /usr/local/bin/python -m pip --version
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*

echo "container_base: import as $image"
tar -C "$rootfs" -c . | podman import \
    --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' - "$image" >/dev/null
podman image ls "$image"
