import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatChaosFigures, runChaos } from '../../chaos/chaos-run.js';

// The chaos run at CI size (`npm run chaos -- --events 3000` is the full-size run, see README).
const EVENTS = 40;

describe('chaos test', () => {
  it('a lake built through kills and restarts of every part equals the fault-free reference', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-chaos-ci-'));
    const report = await runChaos({ events: EVENTS, dir, wrongSecretMs: 4_000, settleTimeoutMs: 240_000 });
    const figures = formatChaosFigures(report, EVENTS);
    expect(report.faults, figures).toHaveLength(6);
    expect(
      {
        missing: report.missing,
        extra: report.extra,
        changed: report.changed,
        duplicates: report.duplicates,
        stuck: report.stuck,
        projectionsDiffering: report.projectionsDiffering,
        isDeadLettersEqual: report.deadLetters.isEqual,
      },
      `${figures}\nstate and logs: ${dir}`
    ).toEqual({
      missing: 0,
      extra: 0,
      changed: 0,
      duplicates: 0,
      stuck: 0,
      projectionsDiffering: [],
      isDeadLettersEqual: true,
    });
    // One alert per kind per window: the whole run is shorter than the default 15-minute window.
    for (const [kind, count] of Object.entries(report.alertsByKind)) expect(count, `${kind}\n${figures}`).toBe(1);
    expect(report.referenceRows).toBeGreaterThan(EVENTS / 2);
    if (report.ok) rmSync(dir, { recursive: true, force: true });
  }, 900_000);
});
