import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../../../cli/dashboard/dashboard-app.js';
import { renderReportHtml } from '../../../cli/report/render-html.js';
import { readEngagementReport } from '../../../lake/index.js';
import { forgetParticipantInLake } from '../../../lake/privacy/forget-participant.js';
import { textMessage, withPushName } from '../../helpers/message-events.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const TOKEN = 'dashboard-test-token-0123456789';
const GROUP = '120363000000000971@g.us';
const ERASED = '100000000000971@lid';
const ZED = '100000000000972@lid';
const PSEUDONYM = 'erased-00000000-0000-4000-8000-000000000971@erased';
/** A push name with a right-to-left override, an isolate and an escape sequence that clears a terminal. */
const ZED_NAME = 'Zed \u202egnp.exe\u2066 \x1b[2J';
const ZED_SHOWN = 'Zed \\u202egnp.exe\\u2066 \\u001b[2J';
const T0 = Date.parse('2025-03-03T15:00:00Z') / 1000;
const RANGE = 'from=2025-03-03&to=2025-03-03';

const fresh = useFreshLake();
let app: FastifyInstance;
const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TOKEN}` } });

beforeAll(async () => {
  const bodies = [
    withPushName('Eve', textMessage({ group: GROUP, id: 'E1', sender: ERASED }, T0)),
    withPushName('Eve', textMessage({ group: GROUP, id: 'E2', sender: ERASED }, T0 + 60)),
    withPushName(ZED_NAME, textMessage({ group: GROUP, id: 'Z1', sender: ZED }, T0 + 120)),
  ];
  for (const [index, body] of bodies.entries())
    await fresh.lake.store(`00000000-0000-4000-8000-${String(971000 + index).padStart(12, '0')}`, JSON.stringify(body));
  const client = await fresh.lake.pool.connect();
  try {
    await client.query('BEGIN');
    await forgetParticipantInLake(client, [ERASED], PSEUDONYM);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  app = buildDashboardApp({ pool: fresh.lake.pool, token: TOKEN, logger: silentLogger() });
});

afterAll(async () => {
  await app.close();
});

const topMembersTable = (html: string): string => /<table id="top-members-table">.*?<\/table>/su.exec(html)?.[0] ?? '';

describe('wa-lake dashboard tables (docs/engagement.md "Dashboard")', () => {
  it('shows an erased member as plain text, never a link to a page that does not exist', async () => {
    const page = await get(`/?${RANGE}`);
    expect(page.statusCode).toBe(200);
    const table = topMembersTable(page.body);
    expect(table).toContain('<td>erased member</td>');
    expect(table).not.toContain('erased-');
    expect(page.body).not.toContain('%40erased');
  });

  it('shows control and bidi characters of a name as escapes in the table, as the report file does', async () => {
    const page = await get(`/?${RANGE}`);
    const table = topMembersTable(page.body);
    expect(table).toContain(`>${ZED_SHOWN}</a></td>`);
    for (const raw of ['\u202e', '\u2066', '\x1b']) expect(page.body).not.toContain(raw);

    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: null,
      from: '2025-03-03',
      to: '2025-03-03',
      lurkerDays: 30,
      topMembers: 15,
    });
    const file = renderReportHtml(report, new Date());
    expect(topMembersTable(file)).toContain(`<td>${ZED_SHOWN}</td>`);
    for (const raw of ['\u202e', '\u2066', '\x1b']) expect(file).not.toContain(raw);
  });
});
