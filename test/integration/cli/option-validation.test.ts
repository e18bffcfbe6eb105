import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';

// A bad value must not reach pg, Temporal or the dev server to fail late with a misleading message (or
// not at all): each fails before anything starts, naming the value.
// Each test runs the CLI in a child process and writes nothing outside a folder of its own: side by side.
describe.concurrent('wa-lake rejects invalid options and settings before doing anything', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-options-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('DATABASE_URL=notaurl wa-lake migrate names the setting instead of "getaddrinfo ENOTFOUND"', async () => {
    const run = await runCli(['migrate'], { env: { DATABASE_URL: 'notaurl' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DATABASE_URL: must be a postgres:// or postgresql:// connection string');
    expect(run.stderr).not.toContain('ENOTFOUND');
  });

  it('wa-lake dev --temporal-port 0 is refused before the data folder is created', async () => {
    const dataDir = join(dir, 'never-created');
    const run = await runCli(['dev', '--data-dir', dataDir, '--temporal-port', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("option '--temporal-port <port>' argument '0' is invalid");
    expect(run.stderr).toContain('from 1 to 65535');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('wa-lake retention apply --older-than with a huge period names the limit', async () => {
    const run = await runCli(['retention', 'apply', '--older-than', '9999999999d']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("argument '9999999999d' is invalid");
    expect(run.stderr).toContain('at most 36500d (100 years)');
  });

  it('wa-lake dlq list --limit abc is refused before Temporal is asked', async () => {
    const run = await runCli(['dlq', 'list', '--limit', 'abc'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("option '--limit <n>' argument 'abc' is invalid");
    expect(run.stderr).not.toContain('cannot reach Temporal');
  });

  it.each([
    ['--lurker-days', '0x10', '<n>'],
    ['--lurker-days', ' 5', '<n>'],
    ['--lurker-days', '5.0', '<n>'],
    ['--top', '1e1', '<n>'],
    ['--max-age', '-0', '<seconds>'],
  ])('wa-lake report %s %j (not plain decimal digits) is refused naming the option', async (option, value, arg) => {
    const run = await runCli(['report', '--json', option, value], {
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`option '${option} ${arg}' argument '${value}' is invalid`);
    expect(run.stdout).toBe('');
  });

  it('wa-lake report --from after --to is refused before the lake is read', async () => {
    const run = await runCli(['report', '--json', '--from', '2025-06-02', '--to', '2025-06-01'], {
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--from 2025-06-02 is after --to 2025-06-01');
    expect(run.stdout).toBe('');
  });

  it.each([['2025-02-30'], ['2025-13-45'], ['2024-02-30'], ['0000-01-01']])(
    'wa-lake report --from %s (not a calendar day) is refused at option parsing, before the lake is read',
    async (day) => {
      const run = await runCli(['report', '--json', '--from', day], {
        env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`option '--from <date>' argument '${day}' is invalid`);
      expect(run.stderr).toContain('expected a date as YYYY-MM-DD');
      expect(run.stderr).not.toContain('out of range');
      expect(run.stdout).toBe('');
    }
  );

  it('wa-lake report --group garbage is refused at option parsing, before the lake is read', async () => {
    const run = await runCli(['report', '--json', '--group', 'garbage'], {
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("option '--group <jid>' argument 'garbage' is invalid");
    expect(run.stderr).toContain('expected a group JID');
    expect(run.stdout).toBe('');
  });

  it('wa-lake dlq replay --all with event ids is refused before Temporal is asked', async () => {
    const run = await runCli(['dlq', 'replay', '--all', 'abc'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('pass either event ids or --all, not both (got --all and abc)');
    expect(run.stderr).not.toContain('cannot reach Temporal');
  });
});

describe('wa-lake dlq replay --all with no dead letter', () => {
  let temporal: DevTemporal;
  beforeAll(async () => {
    temporal = await startDevTemporal();
  });
  afterAll(async () => {
    await temporal?.close();
  });

  it('says that nothing was replayed', async () => {
    const run = await runCli(['dlq', 'replay', '--all'], { env: { TEMPORAL_ADDRESS: temporal.server.address } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('nothing was replayed: there is no open dead letter');
  });
});
