import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuthBlockedScenario } from '../../helpers/auth-blocked-scenario.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { bundleWorkflows } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';

// ADR 0002's scenario with enough events that every alert after the first is deduplicated; the ADR's size (500)
// and its durations are `npm run bench:auth-blocked`. It runs on the real dev server: the time-skipping test
// server loses its time lock under hundreds of concurrent activity failures ("Unbalanced lock and unlock calls").
const EVENT_COUNT = 40;
const OTHER_SECRET = 'rotated-secret-0123456789abcdefgh';

let temporal: DevTemporal;
let ingest: FakeIngest;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [temporal, ingest, bundle] = await Promise.all([
    startDevTemporal(),
    startFakeIngest({ secrets: [OTHER_SECRET] }),
    bundleWorkflows(),
  ]);
});
afterAll(async () => {
  await ingest?.close();
  await temporal?.close();
});

describe('deliverEvent behind a wrong secret at scale', () => {
  it(`sends one alert per window for ${EVENT_COUNT} blocked events, then delivers all of them with no operator action`, async () => {
    const outcome = await runAuthBlockedScenario({
      temporal,
      ingest,
      bundle,
      eventCount: EVENT_COUNT,
      otherSecret: OTHER_SECRET,
      waitFor: (check, what) => waitUntil(check, { what, timeoutMs: 400_000 }),
    });
    expect(outcome.alertsRaised).toBeGreaterThanOrEqual(EVENT_COUNT);
    expect(outcome.lastStateWhileBlocked).toBe('auth_blocked');
    expect(outcome.rowsWhileBlocked).toBe(0);
    expect(outcome.rows).toBe(EVENT_COUNT);
    // At-least-once (architecture.md §1): on a loaded host the tests' 1 s HTTP timeout can expire after the row
    // was stored, and the retry is answered 200 duplicate. Every duplicate outcome must come from such
    // a repeated signed request, never from a row that was not stored.
    expect(outcome.signedEventIds).toBe(EVENT_COUNT);
    expect(outcome.duplicates).toBeLessThanOrEqual(outcome.signedRequests - EVENT_COUNT);
    expect(outcome.alertsSent).toBe(1);
    // Real time on a dev server: the earliest events sit in their blocked backoff (5 s, then 10 s, …) when the fix
    // lands; a loaded machine runs the workflows several times slower, which a generous bound absorbs.
  }, 900_000);
});
