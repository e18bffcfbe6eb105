#!/bin/sh
# Removes from the production node_modules what the image's processes never load (ADR 0018): run by the
# Dockerfile's build stage after `npm prune --omit=dev`, so the runtime stage copies only the rest.
#
#   sh scripts/container/prune-node-modules.sh node_modules     # after `npm run build`: reads ../dist
#
# Each removal names why it is safe. scripts/test-container.sh runs every process of the pruned image
# (the worker bundles its workflows with webpack from it; the report renders a chart and the dashboard serves its
# ECharts bundle in it).
set -eu
nm=${1:?usage: prune-node-modules.sh NODE_MODULES}
[ -d "$nm/@temporalio" ] || { echo "prune-node-modules: $nm holds no @temporalio: not a wa-lake node_modules" >&2; exit 1; }

# Temporal's core bridge ships a prebuilt library for five platforms; the image is one.
bridge="$nm/@temporalio/core-bridge"
find "$bridge/releases" -mindepth 1 -maxdepth 1 ! -name "$(uname -m)-unknown-linux-gnu" -exec rm -rf {} +
rm -rf "$bridge/sdk-core" "$bridge/src" "$bridge/bridge-macros" "$bridge/scripts" "$bridge/Cargo.toml" "$bridge/Cargo.lock"

# Only `wa-lake dev` and `demo` start a PostgreSQL (a dynamic import); sharp and its libvips only make media
# thumbnails (Baileys imports it lazily) that wa-lake never asks for; tsx and esbuild run sources, and the
# image runs dist/.
rm -rf "$nm/embedded-postgres" "$nm/@embedded-postgres" "$nm/sharp" "$nm/@img" "$nm/tsx" "$nm/esbuild" "$nm/@esbuild"

# DuckDB's native library (68 MB) serves only `wa-lake export --parquet`, an analyst's command run from a
# checkout against the same lake; in the image that command says so instead of loading it.
rm -rf "$nm/@duckdb"

# swc compiles TypeScript workflows for the bundler (its `.ts` rule); the image's workflows are dist/*.js.
rm -rf "$nm/@swc/core-linux-x64-gnu" "$nm/@swc/core-linux-x64-musl"

# webpack's minimizer (terser) and WebAssembly parser: the Temporal bundler builds in development mode
# (nothing minimized) from JavaScript workflows (no .wasm). webpack loads either only for such a build.
rm -rf "$nm/terser" "$nm/@webassemblyjs"

# better-sqlite3: only lib/ and the compiled .node file are loaded; its C sources and build objects are not.
find "$nm/better-sqlite3" -mindepth 1 -maxdepth 1 ! -name lib ! -name build ! -name package.json ! -name LICENSE -exec rm -rf {} +
find "$nm/better-sqlite3/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
find "$nm/better-sqlite3/build/Release" -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} +

# ECharts: wa-lake reads the bundles of echarts/dist that cli/report/echarts-bundles.ts names (the report's
# server-side bundle, the dashboard's browser bundle; each holds zrender), asked of the build being pruned, so
# this list cannot drift from the code. Its ES modules, types and extensions are for bundlers.
# dist/package.json makes the bundles CommonJS in an ES-module package.
bundles=$(cd "$nm/.." && node --input-type=module -e '
  const { ECHARTS_BUNDLES } = await import("./dist/cli/report/echarts-bundles.js");
  for (const specifier of Object.values(ECHARTS_BUNDLES)) {
    if (!/^echarts\/dist\/[^/]+$/.test(specifier)) throw new Error(`${specifier} is not a file of echarts/dist`);
    console.log(specifier.slice("echarts/dist/".length));
  }')
set --
for bundle in $bundles; do set -- "$@" ! -name "$bundle"; done
find "$nm/echarts" -mindepth 1 -maxdepth 1 ! -name dist ! -name package.json ! -name LICENSE ! -name NOTICE -exec rm -rf {} +
find "$nm/echarts/dist" -mindepth 1 ! -name package.json "$@" -exec rm -rf {} +
for bundle in $bundles; do
  [ -f "$nm/echarts/dist/$bundle" ] || { echo "prune-node-modules: echarts/dist/$bundle is missing" >&2; exit 1; }
done
rm -rf "$nm/zrender"

# rxjs (the Temporal worker's): Node resolves its `node`/`require` export, dist/cjs; the ES builds are for bundlers.
rm -rf "$nm/rxjs/dist/esm" "$nm/rxjs/dist/esm5" "$nm/rxjs/dist/bundles" "$nm/rxjs/src"

# The native modules' symbol tables (6 MB of the core bridge's 30 MB): Node loads them through their dynamic
# symbols, which stay. A native crash's backtrace then shows addresses instead of function names. The build
# stage has `strip` (binutils comes with g++); elsewhere this step is skipped.
if command -v strip >/dev/null 2>&1; then
  strip --strip-unneeded "$bridge/releases/"*/index.node "$nm/better-sqlite3/build/Release/better_sqlite3.node"
fi

# Type declarations, TypeScript sources, source maps (the workflow bundler ignores a missing map) and
# documents: Node loads none of them. LICENSE and NOTICE files stay.
find "$nm" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.ts' -o -name '*.mts' \
  -o -name '*.cts' -o -name '*.map' -o -name '*.tsbuildinfo' -o -iname '*.md' -o -iname '*.markdown' \) -delete
rm -rf "$nm/@types"
# Test suites and documentation folders of packages (never required by their code).
find "$nm" -depth -type d \( -name test -o -name tests -o -name __tests__ -o -name docs \) \
  ! -path '*/lib/*' ! -path '*/dist/*' -exec rm -rf {} +
find "$nm" -type d -empty -delete
