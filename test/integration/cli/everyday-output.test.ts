import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const SEEN = '100000000000031@lid';
const UNSEEN = '100000000000032@lid';

// What `members` and `report` print for people, and the file errors they explain instead of printing bare.
describe('wa-lake members and report output for people', () => {
  const fresh = useFreshLake();
  let dir: string;
  const cli = (args: readonly string[]): ReturnType<typeof runCli> =>
    runCli(args, { env: { DATABASE_URL: fresh.url } });
  const links = async (): Promise<string[]> =>
    (
      await fresh.lake.pool.query<{ link: string }>(
        `SELECT participant_id || '=' || member_id AS link FROM whatsapp_member_links ORDER BY 1`
      )
    ).rows.map((row) => row.link);
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-everyday-output-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('members import names every bad line at once and imports nothing', async () => {
    const csv = join(dir, 'bad.csv');
    writeFileSync(
      csv,
      `participant_id,member_id\n${SEEN},discord:1\ngarbage,discord:2\n${UNSEEN},\n${SEEN},discord:3\n`
    );
    const run = await cli(['members', 'import', csv]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`wa-lake members import: ${csv} has 3 problems; nothing was imported`);
    expect(run.stderr).toContain('line 3: participant_id must be a LID');
    expect(run.stderr).toContain('line 4: participant_id and member_id are both required');
    expect(run.stderr).toContain(`lines 2 and 5: participant ${SEEN} is linked to two member ids`);
    expect(await links()).toEqual([]);
  }, 60_000);

  it('members import of a folder or a missing file says so in words', async () => {
    const folder = await cli(['members', 'import', dir]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toBe(`wa-lake: cannot read the CSV file ${dir}: it is a folder, not a file\n`);
    const missing = await cli(['members', 'import', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `wa-lake: cannot read the CSV file ${join(dir, 'nope.csv')}: there is no such file or folder\n`
    );
  }, 60_000);

  it('members import warns about participants the lake never saw, and a repeat import changes nothing', async () => {
    await fresh.lake.pool.query(`INSERT INTO whatsapp_participants (id, lid) VALUES ($1, $1)`, [SEEN]);
    const csv = join(dir, 'links.csv');
    writeFileSync(csv, `participant_id,member_id\n${SEEN},discord:1\n${UNSEEN},discord:2\n`);
    const first = await cli(['members', 'import', csv]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`read 2 links from ${csv}: 2 new, 0 changed, 0 unchanged`);
    expect(first.stderr).toContain(`warning: the lake has not seen 1 participant of ${csv} yet`);
    expect(first.stderr).toContain(UNSEEN);
    expect(first.stderr).not.toContain(SEEN);

    const again = await cli(['members', 'import', csv]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`read 2 links from ${csv}: 0 new, 0 changed, 2 unchanged`);
    expect(await links()).toEqual([`${SEEN}=discord:1`, `${UNSEEN}=discord:2`]);

    // A name given for the first time, or changed, is a change; a name left out keeps the stored one.
    writeFileSync(csv, `participant_id,member_id,name\n${SEEN},discord:1,Ana\n${UNSEEN},discord:2,\n`);
    const named = await cli(['members', 'import', csv]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`read 2 links from ${csv}: 0 new, 1 changed, 1 unchanged`);
    expect(named.stdout).toContain(`  ${SEEN}: name (none) replaced by Ana`);
    writeFileSync(csv, `participant_id,member_id,name\n${SEEN},discord:1,Ana Lima\n${UNSEEN},discord:2,\n`);
    const renamed = await cli(['members', 'import', csv]);
    expect(renamed.stdout).toContain(`read 2 links from ${csv}: 0 new, 1 changed, 1 unchanged`);
    expect(renamed.stdout).toContain(`  ${SEEN}: name Ana replaced by Ana Lima`);
  }, 60_000);

  it('members list starts with a header that names its columns', async () => {
    const run = await cli(['members', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').slice(0, 2)).toEqual([
      'member_id\tparticipant_id\tsource',
      `discord:1\t${SEEN}\tcsv`,
    ]);
  }, 60_000);

  it('report --html into a missing folder names the path and the reason', async () => {
    const target = join(dir, 'no-such-folder', 'report.html');
    const run = await cli(['report', '--html', target]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`wa-lake: cannot write the report to ${target}: its folder does not exist\n`);
  }, 60_000);

  it('report refuses a range of nine decades before writing anything', async () => {
    const target = join(dir, 'decades.html');
    const run = await cli(['report', '--from', '2009-01-01', '--to', '2100-12-31', '--html', target]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'the report from 2009-01-01 to 2100-12-31 would span 33602 days, more than the 3660 one report covers'
    );
    expect(() => readFileSync(target)).toThrow();
  }, 60_000);

  it('report --html says when it was generated to the minute, in the report’s time zone', async () => {
    const target = join(dir, 'report.html');
    const run = await cli(['report', '--from', '2025-06-01', '--to', '2025-06-30', '--html', target]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toMatch(/generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} \([A-Za-z_/]+\)<\/p>/);
  }, 60_000);
});
