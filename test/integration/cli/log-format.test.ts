import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { runCli, UNREACHABLE_TEMPORAL_ENV } from '../../helpers/run-cli.js';

const CAPTURE = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));

/** The lines of `text` that are not one JSON object each. */
const notJson = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });

// A terminal got pino's JSON. Readable lines on a TTY or with LOG_FORMAT=pretty; JSON lines when
// stdout is not a terminal (here: a pipe) or LOG_FORMAT=json.
describe('wa-lake log output', () => {
  const migrate = (env: Record<string, string>) =>
    runCli(['migrate'], { env: { DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'info', ...env } });

  it('writes one JSON record per line into a pipe, and with LOG_FORMAT=json', async () => {
    // Two migrations at once are safe (the second waits on the advisory lock) and both log their summary.
    for (const run of await Promise.all([migrate({}), migrate({ LOG_FORMAT: 'json' })])) {
      expect(run.code, run.stderr).toBe(0);
      const records = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string });
      expect(records.map((record) => record.msg)).toContain('migrations applied');
    }
  });

  it('writes readable lines with LOG_FORMAT=pretty: time, level and message, no JSON', async () => {
    const run = await migrate({ LOG_FORMAT: 'pretty' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: migrations applied$/m);
    expect(run.stdout).not.toMatch(/^\{/m);
  });

  it('with LOG_FORMAT=json a failed start is one JSON record on stderr too (ADR 0018), else a sentence', async () => {
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const [json, text] = await Promise.all([
      migrate({ ...env, LOG_FORMAT: 'json' }),
      migrate({ ...env, LOG_FORMAT: 'pretty' }),
    ]);
    expect(json.code).toBe(1);
    const lines = json.stderr.split('\n').filter((line) => line.trim() !== '');
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; name: string });
    expect(records.at(-1)).toMatchObject({ level: 60, name: 'wa-lake' });
    expect(records.at(-1)?.msg).toMatch(/^wa-lake: /);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^wa-lake: /m);
  });

  it('with LOG_FORMAT=json migrate and replay write records only, their summaries as records (ADR 0018)', async () => {
    const migrated = await migrate({ LOG_FORMAT: 'json' });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(notJson(`${migrated.stdout}\n${migrated.stderr}`)).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-log-format-'));
    try {
      const replay = (format: string, name: string) =>
        runCli(['replay', CAPTURE, '--wait-ms', '0'], {
          env: {
            OUTBOX_PATH: join(dir, `${name}.sqlite`),
            AUTH_DIR: join(dir, 'auth'),
            ...UNREACHABLE_TEMPORAL_ENV,
            LOG_LEVEL: 'info',
            LOG_FORMAT: format,
          },
        });
      const [json, pretty] = await Promise.all([replay('json', 'json'), replay('pretty', 'pretty')]);
      expect(json.code, json.stderr).toBe(0);
      expect(notJson(`${json.stdout}\n${json.stderr}`)).toEqual([]);
      const summary = json.stdout
        .split('\n')
        .filter((line) => line.includes('still pending'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(summary).toHaveLength(1);
      expect(summary[0]?.['level']).toBe(30);
      expect(typeof summary[0]?.['records']).toBe('number');
      expect(typeof summary[0]?.['pending']).toBe('number');
      expect(summary[0]?.['msg']).toMatch(
        /^read \d+ lines: .*; \d+ still pending \(the next collector run sends them\)$/
      );
      expect(summary[0]).not.toHaveProperty('eventIds');
      // A person reads the words.
      expect(pretty.code, pretty.stderr).toBe(0);
      expect(pretty.stdout).toMatch(/^\d+ still pending \(the next collector run sends them\)$/m);
      expect(pretty.stdout).toMatch(/^read \d+ lines: /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown LOG_FORMAT before doing anything', async () => {
    const run = await migrate({ LOG_FORMAT: 'xml' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('LOG_FORMAT');
  });
});
