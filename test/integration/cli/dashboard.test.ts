import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../../../cli/dashboard/dashboard-app.js';
import { eventIdFromName } from '../../../collector/event-id.js';
import { importChatExport } from '../../../lake/index.js';
import { textMessage, type Body, withPushName } from '../../helpers/message-events.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
/** Set to write the screenshots of docs/engagement.md "Dashboard" into docs/images. */
const DOCS_IMAGES = process.env['DASHBOARD_SCREENSHOTS'] === 'docs' ? join(process.cwd(), 'docs/images') : null;
const TOKEN = 'dashboard-test-token-0123456789';
const G1 = '120363000000000901@g.us';
const G2 = '120363000000000902@g.us';
const ANA = '100000000000091@lid';
const ANA_NEW = '100000000000099@lid';
const ANA_PHONE = '5500000000091@s.whatsapp.net';
const BEA = '100000000000092@lid';
const DANI = '100000000000093@lid';
const HOUR = 3600;
/** Day d (0 = Monday 1 January 2024) at h:00 in São Paulo. */
const at = (day: number, hour: number): number =>
  Date.parse('2024-01-01T03:00:00Z') / 1000 + day * 86_400 + hour * HOUR;

/** A message with the sender's push name, as WhatsApp sends it. */

/** Two groups; Ana writes daily (her number gets a new LID on 10 February), Bea answers, Dani joins and says hello. */
function scenario(): Body[] {
  const say = (group: string, id: string, sender: string, t: number, extra: { alt?: string; replyTo?: string } = {}) =>
    textMessage(
      { group, id, sender, ...(extra.alt ? { senderAlt: extra.alt } : {}) },
      t,
      extra.replyTo ? { replyTo: extra.replyTo } : {}
    );
  return [
    { type: 'groups.update', chat_jid: G1, payload: { id: G1, subject: 'Book club' } },
    { type: 'groups.update', chat_jid: G2, payload: { id: G2, subject: 'Runners' } },
    {
      type: 'group-participants.update',
      chat_jid: G1,
      captured_at: new Date(at(2, 9) * 1000).toISOString(),
      payload: { id: G1, action: 'add', participants: [{ id: DANI, admin: null }] },
    },
    ...Array.from({ length: 40 }, (_, day) =>
      withPushName('Ana', say(G1, `A${String(day)}`, ANA, at(day, 12), { alt: ANA_PHONE }))
    ),
    ...Array.from({ length: 10 }, (_, day) =>
      withPushName('Ana S.', say(G1, `N${String(day)}`, ANA_NEW, at(40 + day, 12), { alt: ANA_PHONE }))
    ),
    ...[1, 5, 7, 9, 11, 13, 15, 40].map((day) =>
      withPushName(
        'Bea',
        say(G1, `B${String(day)}`, BEA, at(day, 12) + 600, { replyTo: `A${String(Math.min(day, 39))}` })
      )
    ),
    withPushName('Bea', say(G2, 'R1', BEA, at(20, 7))),
    withPushName('Dani', say(G1, 'D1', DANI, at(2, 14))),
    withPushName('Bea', say(G1, 'B3', BEA, at(3, 11), { replyTo: 'D1' })),
  ];
}

const fresh = useFreshLake();
let app: FastifyInstance;
let base = '';
let browser: Browser;
let shots = '';

beforeAll(async () => {
  for (const [index, body] of scenario().entries())
    await fresh.lake.store(`00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, JSON.stringify(body));
  app = buildDashboardApp({ pool: fresh.lake.pool, token: TOKEN, logger: silentLogger() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  base = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`;
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
  shots = mkdtempSync(join(tmpdir(), 'wa-lake-dashboard-'));
});

afterAll(async () => {
  await browser.close();
  await app.close();
  rmSync(shots, { recursive: true, force: true });
});

/** A page logged in with the token that records console errors, page errors and every request it makes. */
async function openPage(): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const context = await browser.newContext({
    httpCredentials: { username: 'manager', password: TOKEN },
    viewport: { width: 1100, height: 900 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  return { page, problems, requests };
}

async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(DOCS_IMAGES ?? shots, name);
  await page.screenshot({ path, fullPage: true });
  expect(readFileSync(path).subarray(1, 4).toString('latin1')).toBe('PNG');
}

describe('wa-lake dashboard (ADR 0025)', () => {
  it('answers nothing without the token, by Basic auth or bearer', async () => {
    const plain = await fetch(`${base}/`);
    expect(plain.status).toBe(401);
    expect(plain.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const wrong = await fetch(`${base}/assets/dashboard.js`, {
      headers: { authorization: `Basic ${Buffer.from('manager:not-the-token-at-all').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    const bearer = await fetch(`${base}/?from=2024-01-01&to=2024-02-29`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await bearer.text()).toContain('Book club');
  });

  it('draws the report in Chromium with group and period filters, from its own origin only, without console errors', async () => {
    const { page, problems, requests } = await openPage();
    await page.goto(`${base}/?from=2024-01-01&to=2024-02-29`);
    await page.waitForSelector('html[data-charts-ready]');
    expect(await page.locator('html').getAttribute('data-charts-ready')).toBe('9');
    expect(await page.locator('.echart svg').count()).toBe(9);
    expect(await page.locator('#total-messages b').textContent()).toBe('61');
    await screenshot(page, 'dashboard-overview.png');

    await page.selectOption('select[name=group]', G2);
    await page.fill('input[name=from]', '2024-01-15');
    await page.click('button[type=submit]');
    await page.waitForSelector('html[data-charts-ready]');
    expect(new URL(page.url()).searchParams.get('group')).toBe(G2);
    expect(await page.locator('p.meta').first().textContent()).toContain(
      `group Runners (${G2}), 2024-01-15 to 2024-02-29`
    );
    expect(await page.locator('#total-messages b').textContent()).toBe('1');

    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(base))).toEqual([]);
  });

  it('finds a member by name and shows their groups, levels, replies and linked ids', async () => {
    const { page, problems, requests } = await openPage();
    await page.goto(`${base}/?from=2024-01-01&to=2024-02-29`);
    await page.fill('input[name=member]', 'dani');
    await page.click('button[type=submit]');
    await page.waitForSelector('html[data-charts-ready]');
    expect(decodeURIComponent(new URL(page.url()).pathname)).toBe(`/members/${DANI}`);
    expect(await page.locator('h1').textContent()).toBe('Dani');
    expect(await page.locator('#member-groups tr').nth(1).locator('td').allTextContents()).toEqual([
      'Book club',
      'member',
      '2024-01-03',
      '—',
      '1',
      '0',
      '0',
      '1',
    ]);
    expect(await page.locator('#member-replies tr').nth(1).locator('td').allTextContents()).toEqual([
      'Bea',
      '0',
      '0',
      '1',
      '0',
    ]);
    // Dani's name was first seen at 14:00 in São Paulo, the lake's zone (17:00 UTC).
    const nameCells = await page.locator('#member-names tr').nth(1).locator('td').allTextContents();
    expect(nameCells.slice(2)).toEqual(['2024-01-03 14:00', '2024-01-03 14:00']);
    expect(await page.locator('p.meta').first().textContent()).toContain('(times in America/Sao_Paulo)');
    expect(await page.locator('#member-levels td').allTextContents()).toEqual([
      '2024-01',
      'explorer',
      'new',
      '2024-02',
      'explorer',
      'held',
    ]);

    // Ana's page: both LIDs of her number, by her latest name, the old one pointing to the new.
    await page.goto(`${base}/members/${encodeURIComponent(ANA)}?from=2024-01-01&to=2024-02-29`);
    await page.waitForSelector('html[data-charts-ready]');
    expect(await page.locator('h1').textContent()).toBe('Ana S.');
    const ids = await page.locator('#identity li').allTextContents();
    expect(ids).toHaveLength(2);
    expect(ids.join(' ')).toContain(`now ${ANA_NEW}`);
    expect(ids.join(' ')).toContain('+55•••••••••91');
    expect(ids.join(' ')).not.toContain('5500000000091');
    await screenshot(page, 'dashboard-member.png');

    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(base))).toEqual([]);
  });

  it('refuses a bad filter and an unknown member with a page that says so', async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const bad = await fetch(`${base}/?from=2024-02-30`, { headers });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('from must be a day as YYYY-MM-DD');
    const unknown = await fetch(`${base}/members/${encodeURIComponent('100000000000999@lid')}`, { headers });
    expect(unknown.status).toBe(404);
    // Days PostgreSQL or the calendar refuses are refused as the report refuses them, in words, never a 500.
    for (const [query, words] of [
      ['from=0000-01-01', 'from must be a day as YYYY-MM-DD, from 2009-01-01 on'],
      ['to=2025-13-45', 'to must be a day as YYYY-MM-DD, from 2009-01-01 on'],
    ] as const) {
      const refused = await fetch(`${base}/?${query}`, { headers });
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(text).toContain(words);
      expect(text).not.toMatch(/Invalid time value|out of range|syntax/);
    }
  });

  it('names a filtered group by its subject, also a group the lake knows only from a chat export', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/?group=${encodeURIComponent(G1)}&from=2024-01-01&to=2024-02-29`);
    await page.waitForSelector('html[data-charts-ready]');
    expect(await page.locator('h1').textContent()).toBe('Engagement · Book club');
    expect(await page.locator('p.meta').first().textContent()).toContain(`group Book club (${G1})`);

    const exported = '120363000000000903@g.us';
    await importChatExport(fresh.lake.pool, {
      groupJid: exported,
      text: readFileSync(new URL('../../fixtures/chat-exports/ios-en-12h.txt', import.meta.url), 'utf8'),
      timeZone: 'America/Sao_Paulo',
      eventIdOf: eventIdFromName,
    });
    await page.goto(`${base}/?group=${encodeURIComponent(exported)}&from=2021-01-01&to=2021-01-31`);
    await page.waitForSelector('html[data-charts-ready]');
    expect(await page.locator('h1').textContent()).toBe('Engagement · Trail club');
    expect(problems).toEqual([]);
  });
});
