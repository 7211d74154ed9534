# Ninja Code Guard as a Docker container action (see docs/action.md and docs/release.md).
#
# Releases are built from this file by .github/workflows/release.yml, signed and published to
# GHCR; action.yml on release tags names that image by digest, so users' runs pull a prebuilt
# image instead of building this. The repository's own CI builds it from source.
#
# BASE_IMAGE is the official Python image pinned by digest; Dependabot's docker ecosystem bumps
# it. CI machines that cannot reach Docker Hub pass a stand-in built from Debian's packages
# (scripts/ci/container_base.sh) with --build-arg BASE_IMAGE=...
ARG BASE_IMAGE=python:3.11.13-slim-bookworm@sha256:86adf8dbadc3d6e82ee5dd2c74bec2e1c2467cdad47886280501df722372d2e1

# ---- build: the locked dependencies and the package, in a virtual environment ----
FROM ${BASE_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
# elfutils' eu-strip, for semgrep-core below (binutils' strip breaks that binary's layout).
RUN apt-get update \
    && apt-get install -y --no-install-recommends elfutils=0.188-2.1 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements/image.lock requirements/image.lock
# Every distribution is pinned with its hashes (requirements/image.lock, generated from
# pyproject.toml by scripts/lock.sh). The lock is complete, so it is installed as it is
# (--no-deps, and `pip check` proves nothing is missing). The optional pip-ca secret is for build machines behind a
# TLS-inspecting proxy: it is mounted for this step only and never written to a layer.
RUN --mount=type=secret,id=pip-ca,required=false \
    if [ -s /run/secrets/pip-ca ]; then export PIP_CERT=/run/secrets/pip-ca; fi \
    && python -m venv --without-pip /opt/venv \
    && python -m pip --python /opt/venv/bin/python install --require-hashes \
        --no-deps -r requirements/image.lock \
    && python -m pip --python /opt/venv/bin/python check
COPY pyproject.toml README.md ./
COPY src ./src
# The package itself, built offline with the locked setuptools; then the build tools go.
# Never used by the action: semgrep-core's debug symbols (58 MB; only its engine runs here),
# litellm's proxy admin UI (static files) and litellm's optional native bridge (litellm falls
# back to Python when it is missing), about 57 MB together.
# Bytecode is compiled here, so no run compiles it again (the image sets
# PYTHONDONTWRITEBYTECODE, and the workspace must not collect __pycache__ folders).
RUN python -m pip --python /opt/venv/bin/python install --no-deps --no-build-isolation \
        --no-index . \
    && python -m pip --python /opt/venv/bin/python uninstall -y -q setuptools wheel \
    && site=$(/opt/venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))') \
    && eu-strip --remove-comment "$site/semgrep/bin/semgrep-core" \
    && rm -rf "$site/litellm/proxy/_experimental/out" "$site/litellm/rust_bridge/_native.abi3.so" \
    && find /opt/venv -name __pycache__ -prune -exec rm -rf {} + \
    && /opt/venv/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash /opt/venv

# ---- runtime: the base image plus the virtual environment and the bundled dataset ----
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="Ninja Code Guard" \
      org.opencontainers.image.description="AI code review for pull requests" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="https://github.com/ninja/code-guard"

# PYTHONSAFEPATH keeps the working directory (the workspace, which holds the pull request's
# files) off sys.path, so a PR that adds a `code_guard/` package cannot run its own code here.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONSAFEPATH=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    CODE_GUARD_DATASET=/opt/code-guard/dataset

COPY --from=build /opt/venv /opt/venv
# The bundled eval dataset, for `mode: eval` without a `dataset` input.
COPY dataset/*.json /opt/code-guard/dataset/

# No USER instruction: GitHub runs Docker actions as the image's user with the workspace and
# the runner's file-command directory mounted from the host, owned by the runner's account,
# and documents that Docker actions must run as root to write to them ($GITHUB_OUTPUT,
# $GITHUB_STEP_SUMMARY, the SARIF file). Files the action writes to the workspace are given
# the workspace owner's uid and gid, so a self-hosted runner's next checkout can remove them.
# The container only runs this package's code.
ENTRYPOINT ["python", "-P", "-m", "code_guard.github.action"]
