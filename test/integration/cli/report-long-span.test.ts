import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildDashboardApp } from '../../../cli/dashboard/dashboard-app.js';
import { textMessage } from '../../helpers/message-events.js';
import { runCli } from '../../helpers/run-cli.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// docs/engagement.md "Report range": an open end of the range is moved in to fit the days one report covers,
// and the report says so; a range asked with both ends is still refused.
const GROUP = '120363000000000888@g.us';
const TOKEN = 'long-span-dashboard-token-0123456789';
const NOTE =
  'the activity from 2014-01-01 to 2025-06-01 spans 4170 days, more than the 3660 one report covers: ' +
  'this report covers the last 3660, 2015-05-26 to 2025-06-01';

describe('reports of a lake whose activity spans more than 3660 days', () => {
  const fresh = useFreshLake();
  let app: FastifyInstance;
  const cli = (args: readonly string[]): ReturnType<typeof runCli> =>
    runCli(args, { env: { DATABASE_URL: fresh.url } });
  beforeAll(async () => {
    const at = (iso: string): number => Date.parse(iso) / 1000;
    const sender = (n: number): string => `10000000000080${String(n)}@lid`;
    for (const [id, n, sent] of [
      ['3EB0SPAN0001', 1, '2014-01-01T12:00:00Z'],
      ['3EB0SPAN0002', 2, '2025-06-01T10:00:00Z'],
    ] as const) {
      const body = {
        ...textMessage({ group: GROUP, id, sender: sender(n) }, at(sent)),
        captured_at: '2025-06-01T10:00:05Z',
      };
      await fresh.lake.store(randomUUID(), JSON.stringify(body));
    }
    app = buildDashboardApp({ pool: fresh.lake.pool, token: TOKEN, logger: silentLogger() });
  });
  afterAll(async () => app.close());

  it('report --json covers the last 3660 days up to the last day and says so on stderr', async () => {
    const run = await cli(['report', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`wa-lake report: ${NOTE}; pass --from and --to for other days`);
    const report = JSON.parse(run.stdout) as { from: string; to: string; rangeNote: string };
    expect(report).toMatchObject({ from: '2015-05-26', to: '2025-06-01', rangeNote: NOTE });
  }, 60_000);

  it('report --from alone covers the first 3660 days from it', async () => {
    const run = await cli(['report', '--json', '--from', '2014-01-01']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ from: '2014-01-01', to: '2024-01-08' });
    expect(run.stderr).toContain('this report covers the first 3660, 2014-01-01 to 2024-01-08');
  }, 60_000);

  it('the dashboard overview answers 200 with the shortened range in its header', async () => {
    const authorization = `Basic ${Buffer.from(`manager:${TOKEN}`).toString('base64')}`;
    const page = await app.inject({ method: 'GET', url: '/', headers: { authorization } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(NOTE);
    expect(page.body).not.toContain('pass --from and --to');
  });
});
