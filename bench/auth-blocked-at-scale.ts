/**
 * ADR 0002 at its stated size: 500 deliverEvent workflows (`--events`) on a dev server behind an ingest that refuses
 * the worker's secret, then the secret is fixed with no operator action (`test/helpers/auth-blocked-scenario.ts`, the
 * scenario `test/integration/delivery/auth-blocked-at-scale.test.ts` asserts at a small size). Prints how long until
 * every event was refused, how long from the fix until every workflow ended, the alerts raised and sent (target: one
 * sent), rows stored and the load average. Exits 1 when a row is missing or more than one alert was sent.
 * Run: `npm run bench:auth-blocked` (`npx tsx bench/auth-blocked-at-scale.ts --events 500`).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { runAuthBlockedScenario } from '../test/helpers/auth-blocked-scenario.js';
import { startFakeIngest } from '../test/helpers/fake-ingest.js';
import { startDevTemporal } from '../test/helpers/temporal-dev.js';
import { buildWorkflowBundle } from '../test/helpers/temporal-env.js';

const OTHER_SECRET = 'rotated-secret-0123456789abcdefgh';
const POLL_INTERVAL_MS = 250;
const WAIT_LIMIT_MS = 30 * 60_000;

const { values: flags } = parseArgs({ options: { events: { type: 'string', default: '500' } } });
const eventCount = Number(flags.events);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const giveUpAtMs = Date.now() + WAIT_LIMIT_MS;
  while (!(await check())) {
    if (Date.now() > giveUpAtMs) throw new Error(`gave up waiting: ${what}`);
    await sleep(POLL_INTERVAL_MS);
  }
}

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const [temporal, ingest, bundle] = await Promise.all([
  startDevTemporal(),
  startFakeIngest({ secrets: [OTHER_SECRET] }),
  buildWorkflowBundle(),
]);
const loadBefore = load();
try {
  const outcome = await runAuthBlockedScenario({
    temporal,
    ingest,
    bundle,
    eventCount,
    otherSecret: OTHER_SECRET,
    waitFor,
  });
  const isOk = outcome.rows === eventCount && outcome.signedEventIds === eventCount && outcome.alertsSent === 1;
  process.stdout.write(
    `auth-blocked events=${eventCount} refused_all_s=${(outcome.refusedAllMs / 1000).toFixed(1)} ` +
      `delivered_after_fix_s=${(outcome.deliveredAllMs / 1000).toFixed(1)} alerts_raised=${outcome.alertsRaised} ` +
      `alerts_sent=${outcome.alertsSent} (target 1) rows=${outcome.rows} duplicates=${outcome.duplicates} ` +
      `load_before=${loadBefore} load_after=${load()} ${isOk ? 'PASS' : 'FAIL'}\n`
  );
  process.exitCode = isOk ? 0 : 1;
} finally {
  await ingest.close();
  await temporal.close();
}
