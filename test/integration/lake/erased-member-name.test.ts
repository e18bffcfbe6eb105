import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventIdFromName } from '../../../collector/event-id.js';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { renderReportHtml } from '../../../cli/report/render-html.js';
import { importChatExport, readEngagementReport } from '../../../lake/index.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { forgetParticipantInLake } from '../../../lake/privacy/forget-participant.js';
import { textMessage, withPushName } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const GROUP = '120363000000000981@g.us';
const ERASED = '100000000000981@lid';
const PHONE = '5500000000981@s.whatsapp.net';
const KEPT = '100000000000982@lid';
const PSEUDONYM = 'erased-00000000-0000-4000-8000-000000000981@erased';
const T0 = Date.parse('2025-03-03T15:00:00Z') / 1000;

const fresh = useFreshLake();

describe('an erased member is named "erased member" (ADR 0029)', () => {
  it('in the display names view, the report JSON and its HTML, never as a masked phone number', async () => {
    const bodies = [
      withPushName('Eve', textMessage({ group: GROUP, id: 'E1', sender: ERASED, senderAlt: PHONE }, T0)),
      withPushName('Eve', textMessage({ group: GROUP, id: 'E2', sender: ERASED, senderAlt: PHONE }, T0 + 60)),
      withPushName('Kim', textMessage({ group: GROUP, id: 'K1', sender: KEPT }, T0 + 120)),
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

  it('also for a member the lake had no name row of, and for a chat-export sender erased by name', async () => {
    const group = '120363000000000983@g.us';
    const unnamed = '100000000000983@lid';
    const body = textMessage({ group, id: 'U1', sender: unnamed }, T0);
    await fresh.lake.store('00000000-0000-4000-8000-000000983000', JSON.stringify(body));
    await importChatExport(fresh.lake.pool, {
      groupJid: group,
      text: '3/4/25 16:00 - Bob: hi\n3/4/25 16:01 - Bob: again\n',
      timeZone: 'UTC',
      eventIdOf: eventIdFromName,
      erasureKey: TEST_ERASURE_KEY,
      dateOrder: 'month-first',
    });
    const forget = (participant: string) =>
      runErasure({
        erasureKey: TEST_ERASURE_KEY,
        pool: fresh.lake.pool,
        outboxPath: join('/nonexistent', randomUUID()),
        temporalClient: null,
        participant,
        requestedBy: 'dpo@example.org',
      });
    await forget(unnamed);
    await forget('name:Bob');
    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: group,
      from: '2025-03-03',
      to: '2025-03-04',
      lurkerDays: 30,
      topMembers: 15,
    });
    expect(report.topMembers.map((member) => [member.displayName, member.messages])).toEqual([
      ['erased member', 2],
      ['erased member', 1],
    ]);
    const html = renderReportHtml(report, new Date('2025-03-04T00:00:00Z'));
    expect(html).not.toMatch(/erased-[0-9a-f-]+@erased/);
  });
});
