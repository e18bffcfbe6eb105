import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDir } from './collector-test-kit.js';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
const run = promisify(execFile);
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

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
    TEMPORAL_ADDRESS: '127.0.0.1:1',
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

describe('wa-lake replay (issue #12 item 9)', () => {
  it('says an empty capture holds nothing and exits non-zero', async () => {
    const result = await replayCli('\n\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('holds no lines: nothing was replayed');
  }, 60_000);

  it('says a capture of malformed lines only was not replayed and exits non-zero', async () => {
    const result = await replayCli('this is not json\n{"neither": "a record"}\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('every one of the 2 lines');
  }, 60_000);
});
