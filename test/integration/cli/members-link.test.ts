import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { InvalidMemberLinkError, linkMembers } from '../../../ingest-api/index.js';
import { useFreshLake } from '../ingest-api/lake-databases.js';

const LID = '100000000000001@lid';

// Fresh-user defects: `members link` stored a blank member id (every participant linked to '' became one
// person in the engagement views) and any participant string (e.g. `garbage`), exit 0 both times.
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

  it('links a well-formed participant the lake has not seen yet, with a warning, trimming the member id', async () => {
    const run = await runCli(['members', 'link', LID, '  discord:1 '], { env: { DATABASE_URL: fresh.url } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`linked ${LID} to discord:1`);
    expect(run.stderr).toContain(`warning: the lake has not seen ${LID} yet`);
    expect(await links()).toEqual([{ participant_id: LID, member_id: 'discord:1' }]);
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

  it('stores member ids trimmed', async () => {
    await linkMembers(fresh.lake.pool, [{ participantId: LID, memberId: ' discord:1\t' }], 'cli');
    const { rows } = await fresh.lake.pool.query('SELECT member_id FROM whatsapp_member_links');
    expect(rows).toEqual([{ member_id: 'discord:1' }]);
  });
});
