import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempDir } from '../../helpers/collector-test-kit.js';
import { UNREACHABLE_TEMPORAL_ENV } from '../../helpers/run-cli.js';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

/** Runs `wa-lake replay <file>` as a user would, with its state in a temp folder and no Temporal server. */
async function replayCli(content: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { dir, cleanup } = createTempDir('replay-cli');
  cleanups.push(cleanup);
  const capture = join(dir, 'capture.jsonl');
  writeFileSync(capture, content);
  const env = {
    PATH: process.env['PATH'] ?? '',
    OUTBOX_PATH: join(dir, 'outbox.sqlite'),
    AUTH_DIR: join(dir, 'auth'),
    ...UNREACHABLE_TEMPORAL_ENV,
    // Longer than the --wait-ms below, so the replay stops with a workflow start in flight.
    OUTBOX_RELAY_START_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'warn',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'replay', capture, '--wait-ms', '1000'], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each test replays its own capture into its own folder, in a child process: side by side.
describe.concurrent('wa-lake replay', () => {
  it('says an empty capture holds nothing and exits non-zero', async () => {
    const result = await replayCli('\n\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('holds no lines: nothing was replayed');
  }, 60_000);

  it('says a capture whose records carry no item was not replayed and exits non-zero', async () => {
    const record = (data: unknown) =>
      JSON.stringify({ captured_at: '2025-06-01T10:00:00Z', event: 'messages.upsert', data });
    const result = await replayCli(`${record(null)}\n${record({ type: 'notify', messages: [] })}\n`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('2 record(s) without any (data null or an empty batch), 0 malformed');
  }, 60_000);

  it('accounts for every line of a mixed capture in its counts', async () => {
    const record = (data: unknown) =>
      JSON.stringify({ captured_at: '2025-06-01T10:00:00Z', event: 'messages.upsert', data });
    const message = {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: '120363000000000001@g.us', fromMe: false, id: 'R1', participant: '100000000000001@lid' },
          messageTimestamp: 1748772000,
          message: { conversation: 'hello' },
        },
      ],
    };
    const result = await replayCli(`${record(message)}\n${record(null)}\n\nnot json\n`);
    // Temporal is unreachable, so the stop comes with a workflow start in flight: it still exits 0.
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('read 4 lines: 2 records, 1 malformed, 1 blank');
    expect(result.stdout).toContain('records: 1 with items, 1 without any (data null or an empty batch)');
    expect(result.stdout).toContain('items  : 1 = 1 kept + 0 dropped');
  }, 90_000);

  it('says a capture of malformed lines only was not replayed and exits non-zero', async () => {
    const result = await replayCli('this is not json\n{"neither": "a record"}\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('every one of the 2 lines');
  }, 60_000);
});
