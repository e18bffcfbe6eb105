# One image for the three wa-lake processes (architecture.md §10): `wa-lake collector` (default), `wa-lake worker`,
# `wa-lake ingest-api`, plus the one-shot `wa-lake migrate`. See docker-compose.temporal.yml and
# docs/runbook.md §10. Checked statically by test/unit/deploy/dockerfile.test.ts (hadolint when installed) and
# built and run for real by scripts/test-container.sh (`npm run test:container`, ADR 0018).
# No `# syntax=` line: it would make BuildKit pull a frontend image; the built-in frontend has all this uses.

# ---- build: full toolchain, dev dependencies, tsc → dist/ ------------------------------------------------
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app

# python3/make/g++ exist only in this stage: node-gyp needs them to compile better-sqlite3 when no
# prebuilt binary can be downloaded. The runtime stage copies the compiled module and never sees them.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

# The postinstall script (scripts/install-tools.mjs): the container needs neither the Temporal binaries (it talks to
# a Temporal server) nor hadolint, so both installs are skipped. npm_config_nodedir: a source build of a
# native module uses the base image's Node headers instead of downloading them (offline builds work).
# NPM_REGISTRY: a registry mirror (empty = the npm default). A TLS-intercepting proxy's CA comes in as the
# build secret `npm_cafile` (`--secret id=npm_cafile,src=…`), only for the RUN that needs it: never a layer.
ARG NPM_REGISTRY=
ENV WA_LAKE_SKIP_TEMPORAL_INSTALL=true \
    WA_LAKE_SKIP_HADOLINT_INSTALL=true \
    npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
COPY package.json package-lock.json ./
# Only the install hooks (postinstall, prepare): another file in scripts/ must not invalidate the cached
# `npm ci` layer. prepare-dist.mjs finds no sources yet and builds nothing; `npm run build` below does.
COPY scripts/install-tools.mjs scripts/prepare-dist.mjs ./scripts/
# The project's npm major (11: it honours `allowScripts`, and installs no optional peer npm 10 would), pinned.
RUN --mount=type=secret,id=npm_cafile \
    if [ -f /run/secrets/npm_cafile ]; then \
      export npm_config_cafile=/run/secrets/npm_cafile NODE_EXTRA_CA_CERTS=/run/secrets/npm_cafile; \
    fi \
 && export npm_config_registry="${NPM_REGISTRY:-https://registry.npmjs.org/}" \
 && npm install --global npm@11.19.1 \
 && npm ci

# Everything else the build needs; .dockerignore keeps out node_modules, tests, docs, secrets and
# session state. Copying the tree (not a folder list) means a new source folder cannot be forgotten.
COPY . .
# bin/wa-lake.js runs dist/cli/main.js; without tsconfig.build.json in the image it never rebuilds.
# Then what the runtime never loads goes (scripts/container/prune-node-modules.sh says why for each): the
# Temporal core bridges of other platforms, embedded-postgres, sharp, tsx/esbuild, swc's binary,
# better-sqlite3's sources and build objects, bundler-only builds, type declarations, source maps, documents
# and test folders; and npm's cache.
RUN npm run build \
 && npm prune --omit=dev \
 && sh scripts/container/prune-node-modules.sh node_modules \
 && rm -rf /root/.npm

# ---- runtime: no compilers, non-root, code read-only, data on volumes ------------------------------------
FROM node:20.20.2-bookworm-slim AS runtime
WORKDIR /app

# LOG_FORMAT=json: every process logs JSON lines (pino, and the Temporal SDK through it), also on a TTY.
ENV LOG_FORMAT=json \
    OUTBOX_PATH=/data/outbox/outbox.sqlite \
    AUTH_DIR=/data/auth \
    WORKER_STATUS_PATH=/data/worker-status.json

# The `node` user (uid 1000) ships with the base image. /data is its only writable place: the volume
# directories are created and owned before VOLUME so a fresh named volume inherits that ownership.
RUN mkdir -p /data/auth /data/outbox \
 && chown -R node:node /data \
 && chmod 700 /data/auth

# Code is owned by root (COPY's default) and not writable by uid 1000.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
# workflows/ sources stay next to dist/ for the Temporal bundler's source maps; they carry no secrets.
COPY --from=build /app/workflows ./workflows

# Numeric so runtimes that enforce non-root (runAsNonRoot) can verify it: 1000 is the image's `node`.
USER 1000:1000
VOLUME ["/data/auth", "/data/outbox"]

# bin/healthcheck.js is plain Node (not the CLI) and checks the process this container runs: the collector's
# status file, the worker's status file or the ingest API's /healthz (docs/runbook.md §10). podman keeps a
# HEALTHCHECK only in `--format docker` images.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "/app/bin/healthcheck.js"]

ENTRYPOINT ["node", "/app/bin/wa-lake.js"]
CMD ["collector"]
