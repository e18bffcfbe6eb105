import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../../cli/report/render-html.js';
import { readEngagementReport, rebuildProjections } from '../../../lake/index.js';
import type { EngagementReport } from '../../../lake/index.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLakes } from '../../helpers/lake-databases.js';

const G1 = '120363000000000301@g.us';
const ANA = '100000000000021@lid';
const BEA = '100000000000022@lid';
const BEA_PHONE = '5500000000022@s.whatsapp.net';
const CAIO_PHONE = '5511987654321@s.whatsapp.net';
const DANI = '100000000000024@lid';
/** 2024-03-04 12:00 in São Paulo. */
const T = Date.parse('2024-03-04T15:00:00Z') / 1000;

const named = (body: Body, names: { pushName?: string; verifiedBizName?: string }): Body => ({
  ...body,
  payload: { ...(body['payload'] as Record<string, unknown>), ...names },
});

/** Ana renames herself; Bea writes from her phone JID (mapped to her LID); Caio has no name; Dani has none either. */
function scenario(): { eventId: string; body: Body }[] {
  const bodies: Body[] = [
    named(textMessage({ group: G1, id: 'N1', sender: ANA }, T), { pushName: 'Ana' }),
    named(textMessage({ group: G1, id: 'N2', sender: ANA }, T + 3600), { pushName: ' Ana S. ' }),
    named(textMessage({ group: G1, id: 'N3', sender: ANA }, T + 7200), { pushName: 'Ana S.' }),
    named(textMessage({ group: G1, id: 'N4', sender: BEA_PHONE }, T + 60), {
      pushName: 'Bea',
      verifiedBizName: 'Bea Ltda',
    }),
    textMessage({ group: G1, id: 'N5', sender: CAIO_PHONE }, T + 120),
    textMessage({ group: G1, id: 'N6', sender: DANI }, T + 180),
    named(textMessage({ group: G1, id: 'N7', sender: DANI }, T + 240), { pushName: '   ' }),
    { type: 'lid-mapping.update', chat_jid: null, payload: { lid: BEA, pn: BEA_PHONE } },
  ];
  return bodies.map((body, index) => ({ eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, body }));
}

const fresh = useFreshLakes(2);
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-names-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const namesOf = async (index: number): Promise<unknown[]> =>
  (
    await fresh.at(index).lake.pool.query<Record<string, unknown>>(
      `SELECT participant_id, kind, name, first_seen_at, last_seen_at, messages FROM whatsapp_participant_names
          ORDER BY 1, 2, 3`
    )
  ).rows;
const displayOf = async (index: number): Promise<unknown[]> =>
  (
    await fresh.at(index).lake.pool.query<Record<string, unknown>>(
      `SELECT participant_id, display_name, display_name_source, phone_jid FROM whatsapp_participant_display_names
          ORDER BY 1`
    )
  ).rows;
const report = (index: number): Promise<EngagementReport> =>
  readEngagementReport(fresh.at(index).lake.pool, {
    groupJid: null,
    from: '2024-03-01',
    to: '2024-03-10',
    lurkerDays: 7,
    topMembers: 10,
  });

describe('participant names (ADR 0020)', () => {
  it('keeps every push and business name with first and last seen, the same by replay, order and rebuild', async () => {
    const events = scenario();
    for (const { eventId, body } of events) await fresh.at(0).lake.store(eventId, JSON.stringify(body));
    for (const { eventId, body } of events) await fresh.at(0).lake.store(eventId, JSON.stringify(body));
    for (const { eventId, body } of [...events].reverse()) await fresh.at(1).lake.store(eventId, JSON.stringify(body));

    const names = await namesOf(0);
    expect(names).toEqual([
      {
        participant_id: ANA,
        kind: 'push',
        name: 'Ana',
        first_seen_at: new Date(T * 1000),
        last_seen_at: new Date(T * 1000),
        messages: 1,
      },
      {
        participant_id: ANA,
        kind: 'push',
        name: 'Ana S.',
        first_seen_at: new Date((T + 3600) * 1000),
        last_seen_at: new Date((T + 7200) * 1000),
        messages: 2,
      },
      expect.objectContaining({ participant_id: BEA, kind: 'business', name: 'Bea Ltda' }),
      expect.objectContaining({ participant_id: BEA, kind: 'push', name: 'Bea' }),
    ]);
    expect(await namesOf(1)).toEqual(names);
    await rebuildProjections(fresh.at(1).lake.pool);
    expect(await namesOf(1)).toEqual(names);

    const display = await displayOf(0);
    expect(display).toEqual(
      [
        { participant_id: ANA, display_name: 'Ana S.', display_name_source: 'push', phone_jid: null },
        { participant_id: DANI, display_name: DANI, display_name_source: 'id', phone_jid: null },
        { participant_id: BEA, display_name: 'Bea', display_name_source: 'push', phone_jid: BEA_PHONE },
        {
          participant_id: CAIO_PHONE,
          display_name: '+5511987654321',
          display_name_source: 'phone',
          phone_jid: CAIO_PHONE,
        },
      ].sort((a, b) => (a.participant_id < b.participant_id ? -1 : 1))
    );
    expect(await displayOf(1)).toEqual(display);
  });

  it('takes a member name from `members import`, which wins over push names', async () => {
    const csv = join(dir, 'links.csv');
    writeFileSync(csv, `participant_id,member_id,name\n${DANI},discord:7,Daniela\n${ANA},discord:8,\n`);
    const run = await runCli(['members', 'import', csv], { env: { DATABASE_URL: fresh.at(0).url } });
    expect(run.code).toBe(0);
    const display = (await displayOf(0)) as { participant_id: string; display_name: string }[];
    expect(display.find((row) => row.participant_id === DANI)?.display_name).toBe('Daniela');
    // A link without a name keeps the push name.
    expect(display.find((row) => row.participant_id === ANA)?.display_name).toBe('Ana S.');
  }, 60_000);

  it('shows names in the report, never a bare LID with a name known, and masks a phone number in HTML', async () => {
    const top = (await report(0)).topMembers;
    expect(top.map((m) => [m.displayName, m.displayNameIsPhone])).toEqual([
      ['Ana S.', false],
      ['Daniela', false],
      ['Bea', false],
      ['+5511987654321', true],
    ]);
    const html = renderReportHtml(await report(0), new Date());
    expect(html).toContain('Ana S.');
    expect(html).toContain('Daniela');
    expect(html).toContain('+55•••••••••21');
    expect(html).not.toContain('5511987654321');
    for (const lid of [ANA, BEA, DANI]) expect(html).not.toContain(lid);
    expect(readFileSync(join(dir, 'links.csv'), 'utf8')).toContain('Daniela');
  });
});
