import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../../../cli/dashboard/dashboard-app.js';
import { readEngagementReport } from '../../../lake/index.js';
import { contentMessage, textMessage, type Body, withPushName } from '../../helpers/message-events.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const TOKEN = 'dashboard-test-token-0123456789';
const G1 = '120363000000000911@g.us';
const G2 = '120363000000000912@g.us';
/** An unlinked sender the lake knows only by phone JID (no LID, no push name). */
const PHONE = '5511900000799@s.whatsapp.net';
const DIGITS = '5511900000799';
/** A LID sender whose push name is itself a phone number, and whose phone JID the lake learns beside it. */
const PHONE_NAMED = '100000000000777@lid';
const PHONE_NAMED_PN = '5500000000007@s.whatsapp.net';
const PHONE_NAME = '+55 21 99876-5432';
const RUNNERS = 51;
const QUESTIONS = 22;
const runner = (n: number): string => `1000000000010${String(n).padStart(2, '0')}@lid`;
/** Day d (0 = 1 January 2024) at h:00 in São Paulo. */
const at = (day: number, hour: number): number =>
  Date.parse('2024-01-01T03:00:00Z') / 1000 + day * 86_400 + hour * 3600;
const RANGE = 'from=2024-01-01&to=2024-02-29';

/** The phone-only sender asks 22 questions nobody answers in G1; in G2, 51 runners reply to their one message. */
function scenario(): Body[] {
  return [
    ...Array.from({ length: QUESTIONS }, (_, day) =>
      contentMessage({ group: G1, id: `Q${String(day)}`, sender: PHONE }, at(day, 12), {
        conversation: 'anyone here?',
      })
    ),
    textMessage({ group: G2, id: 'M0', sender: PHONE }, at(30, 8)),
    withPushName(
      PHONE_NAME,
      textMessage({ group: G2, id: 'P0', sender: PHONE_NAMED, senderAlt: PHONE_NAMED_PN }, at(30, 7))
    ),
    ...Array.from({ length: RUNNERS }, (_, n) =>
      withPushName(
        `Runner ${String(n).padStart(2, '0')}`,
        textMessage({ group: G2, id: `R${String(n)}`, sender: runner(n) }, at(30, 9) + n, { replyTo: 'M0' })
      )
    ),
  ];
}

const fresh = useFreshLake();
let app: FastifyInstance;
const headers = { authorization: `Bearer ${TOKEN}` };
const get = (url: string) => app.inject({ method: 'GET', url, headers });

beforeAll(async () => {
  for (const [index, body] of scenario().entries())
    await fresh.lake.store(`00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, JSON.stringify(body));
  app = buildDashboardApp({ pool: fresh.lake.pool, token: TOKEN, logger: silentLogger() });
});

afterAll(async () => {
  await app.close();
});

describe('wa-lake dashboard member pages and search (docs/engagement.md "Dashboard")', () => {
  it('masks the phone of a member known only by phone JID, on the page and in every link to it', async () => {
    const page = await get(`/members/${encodeURIComponent(PHONE)}?${RANGE}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('+55•••••••••99');
    expect(page.body).not.toContain(DIGITS);

    // The search finds them by their whole number, and its redirect holds no phone number either.
    const found = await get(`/members?member=${encodeURIComponent('+55 11 90000-0799')}&${RANGE}`);
    expect(found.statusCode).toBe(302);
    const location = String(found.headers.location);
    expect(location).toMatch(/^\/members\/p-/);
    expect(location).not.toContain(DIGITS);
    const followed = await get(location);
    expect(followed.statusCode).toBe(200);
    expect(followed.body).toContain('+55•••••••••99');

    // A runner's page links back to them without the number; LID addresses keep working as they are.
    const runnerPage = await get(`/members/${encodeURIComponent(runner(0))}?${RANGE}`);
    expect(runnerPage.statusCode).toBe(200);
    expect(runnerPage.body).toContain(location.split('?')[0]);
    expect(runnerPage.body).not.toContain(DIGITS);

    // A sealed address made with another token opens nothing.
    const other = buildDashboardApp({
      pool: fresh.lake.pool,
      token: 'another-dashboard-token-0123',
      logger: silentLogger(),
    });
    const foreign = await other.inject({
      method: 'GET',
      url: location,
      headers: { authorization: 'Bearer another-dashboard-token-0123' },
    });
    expect(foreign.statusCode).toBe(404);
    await other.close();
  });

  it('finds a member named by their phone number only by the whole number, never by a run of its digits', async () => {
    for (const partial of ['55119', '+55119', '99', '0799', '551190000079', DIGITS.slice(1)]) {
      const search = await get(`/members?member=${encodeURIComponent(partial)}&${RANGE}`);
      expect(search.statusCode, partial).toBe(200);
      expect(search.body, partial).toContain('No member matches.');
      expect(search.body, partial).not.toContain('•••');
    }
    for (const whole of [DIGITS, `+${DIGITS}`, `00${DIGITS}`, '+55 11 90000-0799', PHONE]) {
      const search = await get(`/members?member=${encodeURIComponent(whole)}&${RANGE}`);
      expect(search.statusCode, whole).toBe(302);
      expect(String(search.headers.location), whole).toMatch(/^\/members\/p-/);
    }
    // Push names keep matching any part.
    expect((await get(`/members?member=unner%2003&${RANGE}`)).statusCode).toBe(302);
  });

  it('finds a member whose push name is a phone number only by that whole number or their phone JID', async () => {
    for (const partial of ['5432', '998765', '+55 21', '21 99876-5432', '(21)']) {
      const search = await get(`/members?member=${encodeURIComponent(partial)}&${RANGE}`);
      expect(search.statusCode, partial).toBe(200);
      expect(search.body, partial).not.toContain('•••');
    }
    for (const whole of ['5521998765432', '+55 21 99876-5432', '0055 21 99876 5432', PHONE_NAMED_PN]) {
      const search = await get(`/members?member=${encodeURIComponent(whole)}&${RANGE}`);
      expect(search.statusCode, whole).toBe(302);
      expect(String(search.headers.location), whole).toBe(
        String((await get(`/members?member=${encodeURIComponent(PHONE_NAMED)}&${RANGE}`)).headers.location)
      );
    }
  });

  it('says the search lists the first 50 of all the members that match', async () => {
    const search = await get(`/members?member=runner&${RANGE}`);
    expect(search.statusCode).toBe(200);
    expect(search.body).toContain(`first 50 of ${String(RUNNERS)} members`);
    expect(search.body.match(/<tr><td><a /g)).toHaveLength(50);
  });

  it('gives the totals beside the unanswered messages and reply partners it lists', async () => {
    const page = await get(`/members/${encodeURIComponent(PHONE)}?${RANGE}`);
    expect(page.body).toContain(
      `<p class="meta" id="unanswered-count">${String(QUESTIONS)} messages, the latest 20 listed</p>`
    );
    expect(page.body).toContain(
      `<p class="meta" id="reply-partners-count">${String(RUNNERS)} participants, the busiest 20 listed</p>`
    );
    const runnerPage = await get(`/members/${encodeURIComponent(runner(0))}?${RANGE}`);
    expect(runnerPage.body).toContain('<p class="meta" id="reply-partners-count">1 participant</p>');
  });

  it('refuses a filter holding a control character with a 400 page naming the filter', async () => {
    for (const [url, said] of [
      ['/members?member=%00', 'member must not contain a control character (U+0000)'],
      [`/members?member=ana%1Fx&${RANGE}`, 'member must not contain a control character (U+001F)'],
      ['/?member=a%00b', 'member must not contain a control character (U+0000)'],
      [`/members/${encodeURIComponent(runner(0))}?member=%00`, 'member must not contain a control character'],
      ['/?from=2024-01-01%00', 'from must not contain a control character (U+0000)'],
    ] as const) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(400);
      expect(page.body, url).toContain(said);
    }
  });

  it('asks for each filter once when one is given twice', async () => {
    for (const [url, key] of [
      [`/?group=${G1}&group=${G2}`, 'group'],
      [`/members?member=a&member=b`, 'member'],
      [`/members/${encodeURIComponent(runner(0))}?from=2024-01-01&from=2024-01-02`, 'from'],
    ] as const) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(400);
      expect(page.body, url).toContain(`give each filter once: ${key} was given 2 times`);
      expect(page.body, url).not.toContain('expected string');
    }
  });

  it('answers 404 for a member page of a group the lake does not know, as the overview does', async () => {
    const member = `/members/${encodeURIComponent(runner(0))}`;
    expect((await get(`${member}?group=${G2}&${RANGE}`)).statusCode).toBe(200);
    for (const url of [`${member}?group=120363000000000999@g.us&${RANGE}`, '/?group=120363000000000999@g.us']) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(404);
      expect(page.body, url).toContain('Unknown group');
      expect(page.body, url).toContain('120363000000000999@g.us');
    }
  });

  it('names a defaulted end as the page names it, and heads every from after its to "Bad period"', async () => {
    const defaulted = await get('/?to=2010-01-01');
    expect(defaulted.statusCode).toBe(400);
    expect(defaulted.body).toContain('<h1>Bad period</h1>');
    expect(defaulted.body).toContain('(from defaulted to the first day with activity');
    expect(defaulted.body).not.toContain('--from');
    for (const url of [
      '/?from=2024-02-01&to=2024-01-01',
      `/members/${encodeURIComponent(runner(0))}?from=2024-02-01&to=2024-01-01`,
    ]) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(400);
      expect(page.body, url).toContain('<h1>Bad period</h1>');
      expect(page.body, url).toContain('from 2024-02-01 is after to 2024-01-01');
    }
  });

  it('refuses a from or to with spaces around the day, as wa-lake report does', async () => {
    for (const [url, said] of [
      ['/?from=%202024-01-01', 'from must be a day as YYYY-MM-DD'],
      ['/?to=2024-01-31%20', 'to must be a day as YYYY-MM-DD'],
      [`/members/${encodeURIComponent(runner(0))}?from=2024-01-01%20`, 'from must be a day'],
    ]) {
      const page = await get(url ?? '');
      expect(page.statusCode, url).toBe(400);
      expect(page.body, url).toContain(said);
    }
    expect((await get('/?from=&to=')).statusCode).toBe(200);
  });

  it('refuses a member page whose from falls after its default last day', async () => {
    const page = await get(`/members/${encodeURIComponent(runner(0))}?from=2030-01-01`);
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('from 2030-01-01 is after to 2024-01-31');
    expect(page.body).toContain('name="from" value="2030-01-01"');
    const both = await get(`/members/${encodeURIComponent(runner(0))}?from=2030-01-01&to=2024-01-31`);
    expect(both.statusCode).toBe(400);
    expect(both.body).toContain('from 2030-01-01 is after to 2024-01-31');
  });

  it('keeps the period asked for in the form of the error page when the lake is down', async () => {
    const down = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:9/none', connectionTimeoutMillis: 2000 });
    const broken = buildDashboardApp({ pool: down, token: TOKEN, logger: silentLogger() });
    try {
      for (const url of [`/?${RANGE}`, `/members/${encodeURIComponent(runner(0))}?${RANGE}`]) {
        const page = await broken.inject({ method: 'GET', url, headers });
        expect(page.statusCode).toBe(500);
        expect(page.body).toContain('the page could not be read from the lake');
        expect(page.body).toContain('name="from" value="2024-01-01"');
        expect(page.body).toContain('name="to" value="2024-02-29"');
      }
      // The group asked for stays selected although the group list cannot be read.
      for (const url of [`/?group=${G1}&${RANGE}`, `/members/${encodeURIComponent(runner(0))}?group=${G2}`]) {
        const page = await broken.inject({ method: 'GET', url, headers });
        expect(page.statusCode, url).toBe(500);
        const group = url.includes(G1) ? G1 : G2;
        expect(page.body, url).toContain(`<option value="${group}" selected>${group}</option>`);
      }
    } finally {
      await broken.close();
      await down.end();
    }
  });
});

describe('wa-lake report --json and --csv (docs/engagement.md "Names")', () => {
  it('marks a push name that is itself a phone number as displayNameIsPhone, as the pages mask it', async () => {
    const report = await readEngagementReport(fresh.lake.pool, {
      groupJid: G2,
      from: '2024-01-01',
      to: '2024-02-29',
      lurkerDays: 7,
      topMembers: 100,
    });
    const flags = new Map(report.topMembers.map((m) => [m.displayName, m.displayNameIsPhone]));
    expect(flags.get(PHONE_NAME)).toBe(true);
    expect(flags.get('+5511900000799')).toBe(true);
    expect(flags.get('Runner 00')).toBe(false);
  });
});
