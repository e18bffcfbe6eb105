import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { InvalidParticipantIdentifierError } from '../../../common/participant-identifier.js';
import { InvalidMemberLinkError, linkMembers } from '../../../lake/index.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const LID = '100000000000001@lid';

// `members link` refuses a blank member id (every participant linked to '' would become one person in the
// engagement views) and any participant string that is no JID (e.g. `garbage`), with a non-zero exit.
describe('wa-lake members link refuses what the lake cannot key by', () => {
  const fresh = useFreshLake();
  const links = async (): Promise<{ participant_id: string; member_id: string }[]> =>
    (
      await fresh.lake.pool.query<{ participant_id: string; member_id: string }>(
        'SELECT participant_id, member_id FROM whatsapp_member_links ORDER BY 1'
      )
    ).rows;

  it.each([[''], ['   ']])(
    'refuses the blank member id %j with exit code 1 and writes no row',
    async (memberId) => {
      const run = await runCli(['members', 'link', LID, memberId], { env: { DATABASE_URL: fresh.url } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('member id is required');
      expect(run.stdout).toBe('');
      expect(await links()).toEqual([]);
    },
    60_000
  );

  it('refuses a participant that is neither a LID nor a phone JID, and writes no row', async () => {
    const run = await runCli(['members', 'link', 'garbage', 'discord:1'], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('participant must be a LID (…@lid), a phone JID (…@s.whatsapp.net) or a phone number');
    expect(run.stderr).toContain('"garbage"');
    expect(await links()).toEqual([]);
  }, 60_000);

  it('refuses a member id longer than the 255 characters a link holds, naming it, and writes no row', async () => {
    const run = await runCli(['members', 'link', LID, 'm'.repeat(300)], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('member_id has 300 characters, more than the 255 a link holds');
    expect(run.stderr).not.toContain('character varying');
    expect(await links()).toEqual([]);
  }, 60_000);

  it.each([['tab\tand\nnewline'], ['esc\u001b[31m']])(
    'refuses the member id %j holding a control character, naming it, and writes no row',
    async (memberId) => {
      const run = await runCli(['members', 'link', LID, memberId], { env: { DATABASE_URL: fresh.url } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/member_id holds the control character U\+00(09|1B) at character 4/);
      expect(run.stdout).toBe('');
      expect(await links()).toEqual([]);
    },
    60_000
  );

  it('links a well-formed participant the lake has not seen yet, with a warning, trimming the member id', async () => {
    const run = await runCli(['members', 'link', LID, '  discord:1 '], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`linked ${LID} to discord:1`);
    expect(run.stderr).toContain(`warning: the lake has not seen ${LID} yet`);
    expect(await links()).toEqual([{ participant_id: LID, member_id: 'discord:1' }]);
  }, 60_000);

  it('reads the international prefix 00 of a phone number as +', async () => {
    const run = await runCli(['members', 'link', '0055 11 900000702', 'discord:2'], {
      env: { DATABASE_URL: fresh.url },
    });
    expect(run.code).toBe(0);
    expect(await links()).toContainEqual({ participant_id: '5511900000702@s.whatsapp.net', member_id: 'discord:2' });
    expect((await links()).map((link) => link.participant_id)).not.toContain('005511900000702@s.whatsapp.net');
  }, 60_000);

  it('says which member id a new link replaced', async () => {
    await fresh.lake.pool.query(`INSERT INTO whatsapp_participants (id, lid) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [
      LID,
    ]);
    expect((await runCli(['members', 'link', LID, 'discord:1'], { env: { DATABASE_URL: fresh.url } })).code).toBe(0);
    const run = await runCli(['members', 'link', LID, 'discord:9'], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`linked ${LID} to discord:9 (was linked to discord:1)`);
    expect(await links()).toContainEqual({ participant_id: LID, member_id: 'discord:9' });
  }, 60_000);

  it('links a participant the lake has seen without a warning, under its canonical JID', async () => {
    await fresh.lake.pool.query(`INSERT INTO whatsapp_participants (id, phone_jid) VALUES ($1, $1)`, [
      '5511987654321@s.whatsapp.net',
    ]);
    const run = await runCli(['members', 'link', '5511987654321@c.us', 'discord:2'], {
      env: { DATABASE_URL: fresh.url },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('linked 5511987654321@s.whatsapp.net to discord:2');
    expect(run.stderr).toBe('');
    expect(await links()).toContainEqual({ participant_id: '5511987654321@s.whatsapp.net', member_id: 'discord:2' });
  }, 60_000);
});

describe('linkMembers (every path that writes whatsapp_member_links)', () => {
  const fresh = useFreshLake();

  it('refuses a blank member id for the whole batch, so no caller can store one', async () => {
    const batch = [
      { participantId: LID, memberId: 'discord:1' },
      { participantId: '100000000000002@lid', memberId: ' ' },
    ];
    await expect(linkMembers(fresh.lake.pool, batch, 'csv')).rejects.toThrow(InvalidMemberLinkError);
    expect((await fresh.lake.pool.query('SELECT 1 FROM whatsapp_member_links')).rowCount).toBe(0);
  });

  it('refuses a name holding a newline for the whole batch, naming the character', async () => {
    const batch = [
      { participantId: LID, memberId: 'discord:1' },
      { participantId: '100000000000002@lid', memberId: 'discord:2', name: 'Ana\nBea' },
    ];
    await expect(linkMembers(fresh.lake.pool, batch, 'csv')).rejects.toThrow(
      'name holds the control character U+000A at character 4'
    );
    expect((await fresh.lake.pool.query('SELECT 1 FROM whatsapp_member_links')).rowCount).toBe(0);
  });

  it('stores each participant under its canonical JID and refuses the batch when one is not a participant', async () => {
    await expect(
      linkMembers(
        fresh.lake.pool,
        [
          { participantId: LID, memberId: 'discord:1' },
          { participantId: 'garbage', memberId: 'discord:2' },
        ],
        'api'
      )
    ).rejects.toThrow(InvalidParticipantIdentifierError);
    expect((await fresh.lake.pool.query('SELECT 1 FROM whatsapp_member_links')).rowCount).toBe(0);
    const written = await linkMembers(
      fresh.lake.pool,
      [
        { participantId: '+55 11 98765-4321', memberId: 'discord:1' },
        { participantId: '100000000000001:3@lid', memberId: 'discord:2' },
      ],
      'api'
    );
    const { rows } = await fresh.lake.pool.query(
      'SELECT participant_id AS "participantId", member_id AS "memberId" FROM whatsapp_member_links ORDER BY 1'
    );
    expect(rows).toEqual([
      { participantId: LID, memberId: 'discord:2' },
      { participantId: '5511987654321@s.whatsapp.net', memberId: 'discord:1' },
    ]);
    expect(written).toEqual([
      {
        participantId: '5511987654321@s.whatsapp.net',
        memberId: 'discord:1',
        replacedMemberId: null,
        replacedName: null,
      },
      { participantId: LID, memberId: 'discord:2', replacedMemberId: null, replacedName: null },
    ]);
  });

  it('stores member ids trimmed', async () => {
    await linkMembers(fresh.lake.pool, [{ participantId: LID, memberId: ' discord:1\t' }], 'cli');
    const { rows } = await fresh.lake.pool.query(
      'SELECT member_id FROM whatsapp_member_links WHERE participant_id = $1',
      [LID]
    );
    expect(rows).toEqual([{ member_id: 'discord:1' }]);
  });
});

describe('wa-lake members unlink reads the participant as members link does', () => {
  const fresh = useFreshLake();
  const env = (): Record<string, string> => ({ DATABASE_URL: fresh.url });
  const participants = async (): Promise<string[]> =>
    (
      await fresh.lake.pool.query<{ participant_id: string }>(
        'SELECT participant_id FROM whatsapp_member_links ORDER BY 1'
      )
    ).rows.map((row) => row.participant_id);

  it('removes the canonical link when given the phone number', async () => {
    await linkMembers(
      fresh.lake.pool,
      [{ participantId: '5511987654321@s.whatsapp.net', memberId: 'discord:1' }],
      'cli'
    );
    const run = await runCli(['members', 'unlink', '+55 (11) 98765-4321'], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('unlinked 5511987654321@s.whatsapp.net');
    expect(await participants()).toEqual([]);
  }, 60_000);

  it('still removes a link stored verbatim before links were canonical, given exactly as stored', async () => {
    await fresh.lake.pool.query(
      `INSERT INTO whatsapp_member_links (participant_id, member_id, source, linked_at)
       VALUES ('5511987654322@c.us', 'discord:2', 'cli', now()), ('garbage', 'discord:3', 'cli', now())`
    );
    const byOldJid = await runCli(['members', 'unlink', '5511987654322@c.us'], { env: env() });
    expect(byOldJid.code).toBe(0);
    expect(byOldJid.stdout).toContain('unlinked 5511987654322@c.us');
    const byOldString = await runCli(['members', 'unlink', 'garbage'], { env: env() });
    expect(byOldString.code).toBe(0);
    expect(await participants()).toEqual([]);
  }, 60_000);

  it('refuses a participant that is not one and matches no link, with exit code 1', async () => {
    const run = await runCli(['members', 'unlink', 'nobody'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('participant must be a LID');
  }, 60_000);
});

// A file of NUL bytes is no CSV, /dev/zero never ends and a FIFO blocks: each is refused before it is read.
describe('wa-lake members import refuses what is no text file', () => {
  const fresh = useFreshLake();
  const dir = mkdtempSync(join(tmpdir(), 'members-import-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const linkCount = async (): Promise<number> =>
    (await fresh.lake.pool.query('SELECT 1 FROM whatsapp_member_links')).rowCount ?? 0;

  it('refuses a CSV whose member id holds a tab, naming the line, and imports none of its rows', async () => {
    const file = join(dir, 'tabbed.csv');
    writeFileSync(file, `participant_id,member_id\n${LID},discord:1\n100000000000002@lid,"tab\tand"\n`);
    const run = await runCli(['members', 'import', file], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('has 1 problem; nothing was imported');
    expect(run.stderr).toContain('line 3: member_id holds the control character U+0009 at character 4');
    expect(await linkCount()).toBe(0);
  }, 60_000);

  it('refuses a CSV whose stray quote would join the next rows into a name, naming the line, and imports nothing', async () => {
    const file = join(dir, 'stray-quote.csv');
    writeFileSync(
      file,
      `participant_id,member_id,name\n${LID},d:1,"Ana\n100000000000002@lid,d:2,Bea\n100000000000003@lid,d:3,Caio\n`
    );
    const run = await runCli(['members', 'import', file], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('has 1 problem; nothing was imported');
    expect(run.stderr).toContain('line 2: a quoted field is never closed');
    expect(run.stdout).toBe('');
    expect(await linkCount()).toBe(0);
  }, 60_000);

  it('refuses a CSV whose quoted name holds a newline, naming the line, and imports none of its rows', async () => {
    const file = join(dir, 'two-line-name.csv');
    writeFileSync(file, `participant_id,member_id,name\n${LID},d:1,Ana\n100000000000002@lid,d:2,"Bea\nCaio"\n`);
    const run = await runCli(['members', 'import', file], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('line 3: name holds the control character U+000A at character 4');
    expect(await linkCount()).toBe(0);
  }, 60_000);

  it('refuses a CSV holding NUL bytes, imports nothing and exits 1', async () => {
    const file = join(dir, 'links.csv');
    writeFileSync(file, Buffer.concat([Buffer.from(`participant_id,member_id\n${LID},discord:1\n`), Buffer.alloc(64)]));
    const run = await runCli(['members', 'import', file], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot read the CSV file ${file}: it holds NUL bytes, so it is no text file`);
    expect(await linkCount()).toBe(0);
  }, 60_000);

  it.each([
    ['/dev/zero', () => '/dev/zero'],
    ['a FIFO', () => (execFileSync('mkfifo', [join(dir, 'links.fifo')]), join(dir, 'links.fifo'))],
  ])(
    'refuses %s at once, imports nothing and exits 1',
    async (_kind, makePath) => {
      const path = makePath();
      const run = await runCli(['members', 'import', path], { env: { DATABASE_URL: fresh.url }, timeoutMs: 30_000 });
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `cannot read the CSV file ${path}: it is no regular file (a device, a pipe or a socket)`
      );
      expect(await linkCount()).toBe(0);
    },
    60_000
  );
});
