import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

const GROUP = '120363000000000888@g.us';
const message = (id: string, participant: string, seconds: number, capturedAt: string): string =>
  JSON.stringify({
    captured_at: capturedAt,
    event: 'messages.upsert',
    data: {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: GROUP, fromMe: false, id, participant, addressingMode: 'lid' },
          messageTimestamp: seconds,
          pushName: 'P',
          message: { conversation: 'hi' },
        },
      ],
    },
  });

// docs/engagement.md "Report range": a lake whose activity spans more than one report's days still gets its demo
// summary and a report of the last days, saying so.
describe('wa-lake demo on activity eleven years apart', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-demo-long-span-'));
    // Run as root, embedded PostgreSQL's initdb runs as `postgres`, which must reach the data folder.
    chmodSync(dir, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its delivery summary and a report of the last 3660 days, saying so', async () => {
    const capture = join(dir, 'decade.jsonl');
    writeFileSync(
      capture,
      [
        message(
          '3EB0E0000000000000000000',
          '100000000000801@lid',
          Date.UTC(2014, 0, 1, 12) / 1000,
          '2025-06-01T10:00:01.000Z'
        ),
        message(
          '3EB0E0000000000000000001',
          '100000000000802@lid',
          Date.UTC(2025, 5, 1, 10) / 1000,
          '2025-06-01T10:00:02.000Z'
        ),
        // A clock in 2199 is not believed: counted at its capture time, it stretches no range.
        message(
          '3EB0E0000000000000000002',
          '100000000000802@lid',
          Date.UTC(2199, 11, 8) / 1000,
          '2025-06-01T10:00:03.000Z'
        ),
      ].join('\n') + '\n'
    );
    const run = await runCli(['demo', capture, '--data-dir', join(dir, 'data')], { timeoutMs: 240_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('OK: the lake holds each distinct kept event exactly once');
    expect(run.stdout).toContain('engagement (days in America/Sao_Paulo, 2015-05-26 to 2025-06-01)');
    expect(run.stdout).toContain(
      'range             : the activity from 2014-01-01 to 2025-06-01 spans 4170 days, more than the 3660 one ' +
        'report covers: this report covers the last 3660, 2015-05-26 to 2025-06-01'
    );
  }, 600_000);
});
