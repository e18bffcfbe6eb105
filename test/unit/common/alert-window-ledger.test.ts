import { describe, expect, it } from 'vitest';
import type { Alert } from '../../../common/alert-sink.js';
import { createLedgeredAlertSink, type AlertWindowLedger } from '../../../common/alert-window-ledger.js';
import { silentLogger } from '../../helpers/silent-logger.js';

const alert = (kind: string): Alert => ({ kind, severity: 'error', message: 'm' });

function harness(ledger: AlertWindowLedger, clock = { now: 0 }) {
  const sent: string[] = [];
  const sink = createLedgeredAlertSink({
    inner: { send: (item) => Promise.resolve(sent.push(item.kind) > 0) },
    ledger,
    windowMs: 1_000,
    logger: silentLogger(),
    now: () => clock.now,
  });
  return { sink, sent, clock };
}

describe('createLedgeredAlertSink', () => {
  it('sends only what the ledger lets it claim, and asks again only after the held window ends', async () => {
    let calls = 0;
    const { sink, sent, clock } = harness({
      claim: () => {
        calls += 1;
        return Promise.resolve({ isClaimed: false, heldUntilMs: 500 });
      },
    });
    await expect(sink.send(alert('a'))).resolves.toBe(false);
    await expect(sink.send(alert('a'))).resolves.toBe(false);
    expect(calls).toBe(1);
    clock.now = 500;
    await sink.send(alert('a'));
    expect(calls).toBe(2);
    expect(sent).toEqual([]);
  });

  it('sends a claimed alert through the inner sink', async () => {
    const { sink, sent } = harness({ claim: () => Promise.resolve({ isClaimed: true }) });
    await expect(sink.send(alert('b'))).resolves.toBe(true);
    expect(sent).toEqual(['b']);
  });

  it('sends anyway when the ledger cannot be reached', async () => {
    const { sink, sent } = harness({ claim: () => Promise.reject(new Error('unreachable')) });
    await expect(sink.send(alert('c'))).resolves.toBe(true);
    expect(sent).toEqual(['c']);
  });
});
