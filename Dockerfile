# Ninja Code Guard as a Docker container action (see docs/action.md).
#
# The base image is pinned to an exact patch release; pin it by digest as well when publishing
# a release (`docker buildx imagetools inspect python:3.11.13-slim-bookworm`), and let
# Dependabot's docker ecosystem bump it.
FROM python:3.11.13-slim-bookworm

LABEL org.opencontainers.image.title="Ninja Code Guard" \
      org.opencontainers.image.description="AI code review for pull requests" \
      org.opencontainers.image.licenses="MIT"

# PYTHONSAFEPATH keeps the working directory (the workspace, which holds the pull request's
# files) off sys.path, so a PR that adds a `code_guard/` package cannot run its own code here.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONSAFEPATH=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    CODE_GUARD_DATASET=/opt/code-guard/dataset

WORKDIR /opt/code-guard
COPY pyproject.toml README.md ./
COPY src ./src
# The bundled eval dataset, for `mode: eval` without a `dataset` input.
COPY dataset/*.json ./dataset/
# Dependencies come from the package metadata (pyproject.toml), pinned there.
RUN pip install --no-cache-dir . \
    && rm -rf /opt/code-guard/src /opt/code-guard/build

# No USER instruction: GitHub runs Docker actions as the image's user with the workspace and
# the runner's file-command directory mounted from the host, owned by the runner's account,
# and documents that Docker actions must run as root to write to them ($GITHUB_OUTPUT,
# $GITHUB_STEP_SUMMARY, the SARIF file). The container only runs this package's code.
ENTRYPOINT ["python", "-P", "-m", "code_guard.github.action"]
