import { describe, expect, it } from 'vitest';
import { CoverageBeats, type CoverageBeatPayload } from '../../../collector/coverage-beats.js';
import { silentLogger } from '../../helpers/silent-logger.js';

describe('CoverageBeats', () => {
  it('names the account by its phone JID and its LID, without device suffixes (ADR 0019)', () => {
    const sent: Array<{ type: string; payload: CoverageBeatPayload }> = [];
    const beats = new CoverageBeats({
      pipeline: { handle: (type, payload) => void sent.push({ type, payload: payload as CoverageBeatPayload }) },
      logger: silentLogger(),
      getSelfJid: () => '5500000000009:12@s.whatsapp.net',
      getSelfLid: () => '20000000000009:12@lid',
      intervalMs: 300_000,
      now: () => 1_700_000_000_000,
    });
    beats.onOpen(['120363000000000002@g.us', '120363000000000001@g.us']);
    beats.beat();
    beats.onClosed('stopped');
    expect(sent.map(({ type, payload }) => [type, payload.state, payload.account_jid, payload.account_lid])).toEqual([
      ['collector.session', 'open', '5500000000009@s.whatsapp.net', '20000000000009@lid'],
      ['collector.heartbeat', 'open', '5500000000009@s.whatsapp.net', '20000000000009@lid'],
      ['collector.session', 'closed', '5500000000009@s.whatsapp.net', '20000000000009@lid'],
    ]);
    expect(sent[0]?.payload.groups).toEqual(['120363000000000001@g.us', '120363000000000002@g.us']);
  });

  it('leaves account_lid out while the session knows no LID', () => {
    const sent: CoverageBeatPayload[] = [];
    const beats = new CoverageBeats({
      pipeline: { handle: (_type, payload) => void sent.push(payload as CoverageBeatPayload) },
      logger: silentLogger(),
      getSelfJid: () => '5500000000009@s.whatsapp.net',
      getSelfLid: () => null,
      intervalMs: 300_000,
    });
    beats.onOpen([]);
    beats.onClosed('stopped');
    expect(sent.every((payload) => !('account_lid' in payload))).toBe(true);
  });
});
