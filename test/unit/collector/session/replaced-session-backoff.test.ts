import { describe, expect, it } from 'vitest';
import {
  REPLACED_FIGHT_MIN_DELAY_MS,
  ReplacedSessionBackoff,
} from '../../../../collector/session/replaced-session-backoff.js';

describe('ReplacedSessionBackoff', () => {
  /** Replays 440s that each arrive `liveMs` after the reconnect the previous delay scheduled. */
  function fight(backoff: ReplacedSessionBackoff, clock: { now: number }, count: number, liveMs = 1_000): number[] {
    const delays: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const delayMs = backoff.recordReplaced(4_000);
      delays.push(delayMs);
      clock.now += delayMs + liveMs;
    }
    return delays;
  }

  it('waits at least 30 s after the third 440 within 60 s, and longer after each further one', () => {
    const clock = { now: 0 };
    const backoff = new ReplacedSessionBackoff({ maxDelayMs: 300_000, now: () => clock.now });
    const delays = fight(backoff, clock, 6);
    expect(delays.slice(0, 2)).toEqual([4_000, 4_000]);
    expect(delays[2]).toBeGreaterThanOrEqual(REPLACED_FIGHT_MIN_DELAY_MS);
    expect(delays.slice(2)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(backoff.isFighting).toBe(true);
  });

  it('never grows past the ceiling, and never below 30 s even when the ceiling is lower', () => {
    const clock = { now: 0 };
    expect(fight(new ReplacedSessionBackoff({ maxDelayMs: 100_000, now: () => clock.now }), clock, 6).at(-1)).toBe(
      100_000
    );
    expect(fight(new ReplacedSessionBackoff({ maxDelayMs: 8_000, now: () => clock.now }), clock, 5).at(-1)).toBe(
      30_000
    );
  });

  it('does not back off 440s that each come after a connection that lasted over a minute', () => {
    const clock = { now: 0 };
    const backoff = new ReplacedSessionBackoff({ maxDelayMs: 300_000, now: () => clock.now });
    expect(fight(backoff, clock, 5, 61_000)).toEqual([4_000, 4_000, 4_000, 4_000, 4_000]);
    expect(backoff.isFighting).toBe(false);
  });

  it('ends the fight once a connection survives longer than the gap', () => {
    const clock = { now: 0 };
    const backoff = new ReplacedSessionBackoff({ maxDelayMs: 300_000, now: () => clock.now });
    fight(backoff, clock, 4);
    clock.now += 120_000;
    expect(backoff.recordReplaced(4_000)).toBe(4_000);
    expect(backoff.isFighting).toBe(false);
  });
});
