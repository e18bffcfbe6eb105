import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { runCli } from '../../helpers/run-cli.js';

const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

// "No command destroys data": each refusal comes before the lake is read or anything is written.
// Every command below is refused before it writes anything; each runs in a child process: side by side.
describe.concurrent('wa-lake commands refuse destinations that hold what they did not write', () => {
  let dir: string;
  let home: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-refusals-'));
    home = join(dir, 'home');
    mkdirSync(home);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('report --html refuses to overwrite a file that is not a report', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    const run = await runCli(['report', '--html', notes]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `wa-lake: refusing to overwrite ${notes}: it is not a wa-lake report; name a new file, or pass --force to replace it\n`
    );
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
  });

  it('report --csv refuses existing CSV files it did not write, and /, ~ and the checkout', async () => {
    const out = join(dir, 'accounts');
    mkdirSync(out);
    writeFileSync(join(out, 'groups.csv'), 'name,balance\nrent,900\n');
    const foreign = await runCli(['report', '--csv', out]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(`refusing to overwrite groups.csv in ${out}: not written by wa-lake report`);
    expect(readdirSync(out)).toEqual(['groups.csv']);
    const targets = [
      ['/', 'it is the filesystem root'],
      [home, 'it is your home folder'],
      [CHECKOUT, 'it is the wa-lake checkout'],
    ] as const;
    const runs = await Promise.all(
      targets.map(([target]) => runCli(['report', '--csv', target, '--force'], { env: { HOME: home } }))
    );
    targets.forEach(([target, reason], index) => {
      expect(runs[index]?.code).toBe(1);
      expect(runs[index]?.stderr).toContain(`refusing to write 14 CSV files into ${target}: ${reason}`);
    });
    expect(existsSync(join(CHECKOUT, 'totals.csv'))).toBe(false);
    expect(readdirSync(home)).toEqual([]);
  });

  it('dev --data-dir ~, / and a folder above the checkout write nothing, not even the lock file', async () => {
    const [tilde, root, above] = await Promise.all([
      runCli(['dev', '--data-dir', home], { env: { HOME: home } }),
      runCli(['dev:temporal', '--data-dir', '/'], { cwd: dir }),
      runCli(['dev', '--data-dir', join(CHECKOUT, '..')], { cwd: dir }),
    ]);
    expect(tilde.code).toBe(1);
    expect(tilde.stderr).toBe(
      `wa-lake: refusing to use ${home} as the data folder (--data-dir): it is your home folder; pass a folder of its own, such as .data\n`
    );
    expect(readdirSync(home)).toEqual([]);
    expect(root.code).toBe(1);
    expect(root.stderr).toContain('refusing to use / as the data folder (--data-dir): it is the filesystem root');
    expect(existsSync('/wa-lake-dev.instance.lock')).toBe(false);
    expect(above.code).toBe(1);
    expect(above.stderr).toContain('it holds the wa-lake checkout');
  });

  it('an empty output path is refused, never taken as no option or as the working directory', async () => {
    const runs = await Promise.all(
      [
        ['report', '--html', '', '--from', '2030-01-01', '--to', '2030-01-31'],
        ['report', '--csv', ''],
        ['export', '--parquet', ''],
        ['export', '--participant', '+5511987654321', '--out', ' '],
      ].map((args) => runCli(args, { cwd: dir }))
    );
    const flags = ["'--html <file>' argument ''", "'--csv <dir>' argument ''", "'--parquet <dir>' argument ''"];
    flags.push("'--out <dir>' argument ' '");
    runs.forEach((run, index) => {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`option ${flags[index] ?? ''} is invalid. expected a path, not an empty string.`);
    });
  });

  it('report refuses a --top or --lurker-days PostgreSQL cannot count with, naming the option', async () => {
    const [top, lurkers] = await Promise.all([
      runCli(['report', '--json', '--top', '1e308'], { cwd: dir }),
      runCli(['report', '--json', '--lurker-days', '99999999999'], { cwd: dir }),
    ]);
    expect(top.code).toBe(1);
    expect(top.stderr).toContain("option '--top <n>' argument '1e308' is invalid. must be an integer from 1 to 10000.");
    expect(lurkers.code).toBe(1);
    expect(lurkers.stderr).toContain(
      "option '--lurker-days <n>' argument '99999999999' is invalid. must be an integer from 1 to 36500."
    );
  });

  it('export --participant refuses the checkout as --out', async () => {
    const run = await runCli(['export', '--participant', '+5511987654321', '--out', CHECKOUT]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `wa-lake: refusing to write personal data into ${CHECKOUT}: it is the wa-lake checkout; ` +
        'pass --out with a folder of its own, or leave --out out for .data/exports\n'
    );
  });
});

describe('wa-lake export --participant without --out', () => {
  const fresh = useFreshLake();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-export-default-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes into .data/exports (owner-only), never the working directory', async () => {
    const run = await runCli(['export', '--participant', '+5511987654321'], {
      cwd: dir,
      env: { DATABASE_URL: fresh.url },
    });
    expect(run.code, run.stderr).toBe(0);
    const exports = join(dir, '.data', 'exports');
    expect(run.stdout).toContain(`JSON: ${exports}/participant-export-`);
    expect(readdirSync(dir)).toEqual(['.data']);
    expect(readdirSync(exports)).toHaveLength(2);
    expect(statSync(exports).mode & 0o777).toBe(0o700);
  }, 60_000);
});
