import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCaptureLine } from '../../../collector/capture/capture-line.js';
import { GROUP_A, T0, textMessage } from '../../../examples/capture-builders.js';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
const EVENTS = 1_500;

/** A capture of `EVENTS` group text messages: far more than the demo delivers in the seconds before Ctrl-C. */
function writeBigCapture(path: string): void {
  const lines: string[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const at = T0 + i;
    const message = textMessage(GROUP_A, `3EB0F${String(i).padStart(19, '0')}`, 1 + (i % 4), at, `message ${i}`);
    lines.push(formatCaptureLine('messages.upsert', { type: 'notify', messages: [message] }, new Date(at * 1000)));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

// Fix-a-thon defect 1: Ctrl-C during `demo` was ignored until the delivery timeout (3 min), which then
// printed MISMATCH as if the pipeline had failed.
describe('wa-lake demo stopped by Ctrl-C', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-demo-sigint-'));
    // Run as root, embedded PostgreSQL's initdb runs as `postgres`, which must reach the data folder.
    chmodSync(dir, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the stack and says it was stopped before delivery finished (exit 130, no MISMATCH)', async () => {
    const capture = join(dir, 'big.jsonl');
    writeBigCapture(capture);
    const dataDir = join(dir, 'data');
    const child = spawn(process.execPath, [CLI, 'demo', capture, '--data-dir', dataDir, '--timeout-ms', '3600000'], {
      env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'warn' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // The collector is the last component the stack starts; its status file says the stack is up.
      await vi.waitFor(() => expect(existsSync(join(dataDir, 'collector-status.json')), output).toBe(true), {
        timeout: 180_000,
        interval: 500,
      });
      child.kill('SIGINT');
      // Generous for a loaded box, and far below the demo's (here hour-long) timeout it must not wait for.
      const code = await Promise.race([
        exited,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 90_000)),
      ]);
      expect(code).toBe(130);
      expect(output).toContain('wa-lake demo: stopped by SIGINT before delivery finished');
      expect(output).not.toContain('MISMATCH');
    } finally {
      child.kill('SIGKILL');
    }
  }, 300_000);
});
