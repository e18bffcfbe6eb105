import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// A terminal got pino's JSON. Readable lines on a TTY or with LOG_FORMAT=pretty; JSON lines when
// stdout is not a terminal (here: a pipe) or LOG_FORMAT=json.
describe('wa-lake log output', () => {
  const migrate = (env: Record<string, string>) =>
    runCli(['migrate'], { env: { DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'info', ...env } });

  it('writes one JSON record per line into a pipe, and with LOG_FORMAT=json', async () => {
    for (const run of [await migrate({}), await migrate({ LOG_FORMAT: 'json' })]) {
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
    const json = await migrate({ ...env, LOG_FORMAT: 'json' });
    expect(json.code).toBe(1);
    const lines = json.stderr.split('\n').filter((line) => line.trim() !== '');
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; name: string });
    expect(records.at(-1)).toMatchObject({ level: 60, name: 'wa-lake' });
    expect(records.at(-1)?.msg).toMatch(/^wa-lake: /);
    const text = await migrate({ ...env, LOG_FORMAT: 'pretty' });
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^wa-lake: /m);
  });

  it('refuses an unknown LOG_FORMAT before doing anything', async () => {
    const run = await migrate({ LOG_FORMAT: 'xml' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('LOG_FORMAT');
  });
});
