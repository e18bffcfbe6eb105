import { describe, expect, it } from 'vitest';
import { decideOnDisconnect } from '../../../../collector/session/disconnect-policy.js';
import { ReconnectBackoff } from '../../../../collector/session/reconnect-backoff.js';
import { boomLike } from '../../../helpers/socket-double.js';

describe('ReconnectBackoff', () => {
  const make = (clock: { now: number }) =>
    new ReconnectBackoff({
      baseDelayMs: 1000,
      maxDelayMs: 8000,
      windowMs: 600_000,
      now: () => clock.now,
      random: () => 1,
    });

  it('grows the delay with each disconnect inside the window, up to the cap', () => {
    const clock = { now: 0 };
    const backoff = make(clock);
    const delays = [1, 2, 3, 4, 5].map(() => {
      clock.now += 1000;
      return backoff.recordDisconnect();
    });
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000]);
  });

  it('is not reset by a brief open: only disconnects leaving the window lower the delay', () => {
    const clock = { now: 0 };
    const backoff = make(clock);
    backoff.recordDisconnect();
    backoff.recordDisconnect();
    // An open that lasts 5 s and drops again: the session never tells the backoff about opens.
    clock.now += 5000;
    expect(backoff.recordDisconnect()).toBe(4000);
    clock.now += 600_001;
    expect(backoff.recordDisconnect()).toBe(1000);
  });

  it('lets the first restart-required reconnect at once, but not repeated ones', () => {
    const backoff = make({ now: 0 });
    expect(backoff.recordDisconnect(true)).toBe(0);
    expect(backoff.recordDisconnect(true)).toBe(2000);
  });
});

describe('decideOnDisconnect', () => {
  it('decides on numeric status codes', () => {
    expect(decideOnDisconnect(boomLike(401, 'Connection Failure'))).toMatchObject({
      action: 'stop',
      reason: 'logged_out',
    });
    expect(decideOnDisconnect(boomLike(403, 'forbidden'))).toMatchObject({ action: 'stop', reason: 'forbidden' });
    expect(decideOnDisconnect(boomLike(440, 'replaced'))).toMatchObject({ action: 'reconnect', reason: 'replaced' });
    expect(decideOnDisconnect(boomLike(515, 'restart'))).toMatchObject({
      action: 'reconnect',
      reason: 'restart_required',
    });
    expect(decideOnDisconnect(boomLike(428, 'closed'))).toMatchObject({
      action: 'reconnect',
      reason: 'connection_lost',
    });
    expect(decideOnDisconnect(boomLike(408, 'Connection was lost'))).toMatchObject({ reason: 'connection_lost' });
    expect(
      decideOnDisconnect(
        boomLike(408, 'WebSocket Error (getaddrinfo ENOTFOUND web.whatsapp.com)', { code: 'ENOTFOUND' })
      )
    ).toMatchObject({
      action: 'reconnect',
      reason: 'network',
    });
    expect(decideOnDisconnect(undefined)).toMatchObject({ action: 'reconnect', statusCode: 0 });
  });
});
