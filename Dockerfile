# syntax=docker/dockerfile:1
# One image for the three wa-lake processes (architecture.md §10): `wa-lake collector` (default), `wa-lake worker`,
# `wa-lake ingest-api`, plus the one-shot `wa-lake migrate`. See docker-compose.temporal.yml and
# docs/runbook.md. Built and checked by test/unit/deploy/dockerfile.test.ts (hadolint when installed).

# ---- build: full toolchain, dev dependencies, tsc → dist/ ------------------------------------------------
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app

# python3/make/g++ exist only in this stage: node-gyp needs them to compile better-sqlite3 when no
# prebuilt binary matches this Node ABI. The runtime stage copies the compiled module and never sees them.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

# The postinstall script lives in scripts/; the container needs neither the Temporal binaries (it talks to
# a Temporal server) nor hadolint, so both installs are skipped.
ENV WA_LAKE_SKIP_TEMPORAL_INSTALL=true \
    WA_LAKE_SKIP_HADOLINT_INSTALL=true
COPY package.json package-lock.json ./
COPY scripts/ ./scripts/
RUN npm ci --no-audit --no-fund

# Everything else the build needs; .dockerignore keeps out node_modules, tests, docs, secrets and
# session state. Copying the tree (not a folder list) means a new source folder cannot be forgotten.
COPY . .
# bin/wa-lake.js runs dist/cli/main.js; without tsconfig.build.json in the image it never rebuilds.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: no compilers, non-root, data on volumes ---------------------------------------------------
FROM node:20.20.2-bookworm-slim AS runtime
WORKDIR /app

ENV OUTBOX_PATH=/data/outbox/outbox.sqlite \
    AUTH_DIR=/data/auth

# The `node` user (uid 1000) ships with the base image. The volume directories are created and owned
# before VOLUME so a fresh named volume inherits that ownership.
RUN mkdir -p /data/auth /data/outbox \
 && chown -R node:node /data

COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/bin ./bin
COPY --from=build --chown=node:node /app/dist ./dist
# workflows/ sources stay next to dist/ for the Temporal bundler's source maps; they carry no secrets.
COPY --from=build --chown=node:node /app/workflows ./workflows

# Numeric so runtimes that enforce non-root (runAsNonRoot) can verify it: 1000 is the image's `node`.
USER 1000:1000
VOLUME ["/data/auth", "/data/outbox"]

# Default check is the collector's: `wa-lake status --healthcheck` exits 0 only while the collector's
# status file shows a recent heartbeat. docker-compose.temporal.yml overrides it for the worker and the
# ingest API (GET /healthz).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["node", "/app/bin/wa-lake.js", "status", "--healthcheck"]

ENTRYPOINT ["node", "/app/bin/wa-lake.js"]
CMD ["collector"]
