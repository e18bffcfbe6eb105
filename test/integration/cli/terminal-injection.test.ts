import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const LID = '100000000000021@lid';
const CLEAR_SCREEN = '\u001b[2J\u001b[H';
const CLIPBOARD_WRITE = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\u0007';

// ADR 0014: a member id comes from a CSV or another system; `members list` printed its bytes raw. Links refuse
// control characters since ADR 0035, but a lake keeps the ids an earlier release stored: written here as they were.
describe('wa-lake members list never lets a stored string drive the terminal', () => {
  const fresh = useFreshLake();
  const storeLink = async (memberId: string): Promise<void> => {
    await fresh.lake.pool.query(
      `INSERT INTO whatsapp_member_links (participant_id, member_id, source) VALUES ($1, $2, 'csv')
       ON CONFLICT (participant_id) DO UPDATE SET member_id = excluded.member_id`,
      [LID, memberId]
    );
  };

  it('prints clear-screen, clipboard-write and C1 sequences as visible escapes, one line per link', async () => {
    const memberId = `discord:1${CLEAR_SCREEN}${CLIPBOARD_WRITE}\u009b2J\nforged\tline`;
    await storeLink(memberId);

    const run = await runCli(['members', 'list'], { env: { DATABASE_URL: fresh.url } });

    expect(run.code).toBe(0);
    for (const raw of ['\u001b', '\u0007', '\u009b']) expect(run.stdout).not.toContain(raw);
    expect(run.stdout).toBe(
      'member_id\tparticipant_id\tsource\n' +
        'discord:1\\u001b[2J\\u001b[H\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\\u0007\\u009b2J\\u000aforged\\u0009line' +
        `\t${LID}\tcsv\n`
    );
  }, 60_000);

  it('keeps --json exact: the stored member id decodes back from the printed line', async () => {
    const memberId = `discord:2${CLEAR_SCREEN}\u009b2J\u007f`;
    await storeLink(memberId);

    const run = await runCli(['members', 'list', '--json'], { env: { DATABASE_URL: fresh.url } });

    expect(run.code).toBe(0);
    for (const raw of ['\u001b', '\u007f', '\u009b']) expect(run.stdout).not.toContain(raw);
    expect(JSON.parse(run.stdout)).toContainEqual(expect.objectContaining({ memberId, participantId: LID }));
  }, 60_000);
});

// Commander's own errors echo the value typed: a pasted argument could carry a title-setting OSC or a bidi override.
describe('wa-lake option errors never let a typed value drive the terminal', () => {
  it.each([
    [['report', '--json', '--from', '\u001b]0;pwned\u0007'], ['\u001b', '\u0007'], '\\u001b]0;pwned\\u0007'],
    [['report', '--json', '--group', '\u202e1@g.us'], ['\u202e'], '\\u202e1@g.us'],
    [['members', 'import', 'a.csv', '--bogus\u001b[2J'], ['\u001b'], '\\u001b[2J'],
  ])(
    'escapes what %j echoes on stderr and exits non-zero',
    async (args, raws, escaped) => {
      const run = await runCli(args, { env: { DATABASE_URL: 'postgres://127.0.0.1:1/none' } });
      expect(run.code).not.toBe(0);
      for (const raw of raws) expect(run.stderr).not.toContain(raw);
      expect(run.stderr).toContain(escaped);
    },
    60_000
  );
});
