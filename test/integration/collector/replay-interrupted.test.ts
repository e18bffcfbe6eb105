import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
const CAPTURE = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

// Fix-a-thon defect 3: Ctrl-C during `wa-lake replay` exited 130 silently and left a status file that
// still said "replay since … (pid N)", so `status --healthcheck` passed for a process that was gone.
describe('wa-lake replay stopped by Ctrl-C', () => {
  it('says it was interrupted, exits 130, and leaves a status that says stopped', async () => {
    const { dir, cleanup } = createTempDir('replay-sigint');
    cleanups.push(cleanup);
    const env = {
      PATH: process.env['PATH'] ?? '',
      LOG_LEVEL: 'error',
      OUTBOX_PATH: join(dir, 'outbox.sqlite'),
      AUTH_DIR: join(dir, 'auth'),
      // Unreachable Temporal: the replay waits for the outbox to drain until its --wait-ms, i.e. until Ctrl-C.
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    };
    const child = spawn(process.execPath, [CLI, 'replay', CAPTURE, '--wait-ms', '600000'], { env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    cleanups.push(() => child.kill('SIGKILL'));
    await vi.waitFor(() => expect(existsSync(join(dir, 'collector-status.json'))).toBe(true), {
      timeout: 60_000,
      interval: 200,
    });
    child.kill('SIGINT');

    expect(await exited).toBe(130);
    expect(stderr).toContain('wa-lake replay: stopped by SIGINT before the replay finished');
    expect(stderr).toContain('run the same command again to continue');
    expect((await runCli(['status', '--healthcheck'], { env })).code).toBe(1);
    const report = JSON.parse((await runCli(['status', '--json'], { env })).stdout) as {
      session: { state: string } | null;
    };
    expect(report.session?.state).toBe('stopped');
  }, 120_000);
});
