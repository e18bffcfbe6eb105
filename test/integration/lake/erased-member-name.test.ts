import { describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../../cli/report/render-html.js';
import { readEngagementReport } from '../../../lake/index.js';
import { forgetParticipantInLake } from '../../../lake/privacy/forget-participant.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const GROUP = '120363000000000981@g.us';
const ERASED = '100000000000981@lid';
const PHONE = '5500000000981@s.whatsapp.net';
const KEPT = '100000000000982@lid';
const PSEUDONYM = 'erased-00000000-0000-4000-8000-000000000981@erased';
const T0 = Date.parse('2025-03-03T15:00:00Z') / 1000;

const fresh = useFreshLake();

function named(name: string, body: Body): Body {
  return { ...body, payload: { ...(body['payload'] as Record<string, unknown>), pushName: name } };
}

describe('an erased member is named "erased member" (ADR 0029)', () => {
  it('in the display names view, the report JSON and its HTML, never as a masked phone number', async () => {
    const bodies = [
      named('Eve', textMessage({ group: GROUP, id: 'E1', sender: ERASED, senderAlt: PHONE }, T0)),
      named('Eve', textMessage({ group: GROUP, id: 'E2', sender: ERASED, senderAlt: PHONE }, T0 + 60)),
      named('Kim', textMessage({ group: GROUP, id: 'K1', sender: KEPT }, T0 + 120)),
    ];
    for (const [index, body] of bodies.entries())
      await fresh.lake.store(
        `00000000-0000-4000-8000-${String(981000 + index).padStart(12, '0')}`,
        JSON.stringify(body)
      );
    const client = await fresh.lake.pool.connect();
    try {
      await client.query('BEGIN');
      await forgetParticipantInLake(client, [ERASED], PSEUDONYM);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await fresh.lake.pool.query<Record<string, unknown>>(
      `SELECT display_name, display_name_source, phone_jid FROM whatsapp_participant_display_names
        WHERE participant_id = $1`,
      [PSEUDONYM]
    );
    expect(rows).toEqual([{ display_name: 'erased member', display_name_source: 'erased', phone_jid: null }]);
    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: null,
      from: '2025-03-03',
      to: '2025-03-03',
      lurkerDays: 30,
      topMembers: 15,
    });
    expect(report.topMembers.map((member) => [member.displayName, member.displayNameIsPhone])).toEqual([
      ['erased member', false],
      ['Kim', false],
    ]);
    const html = renderReportHtml(report, new Date('2025-03-04T00:00:00Z'));
    expect(html).toContain('erased member');
    expect(html).not.toMatch(/\+(?:er|80)•/);
    expect(html).not.toContain('Eve');
  });
});
