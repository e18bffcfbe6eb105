import { describe, expect, it } from 'vitest';
import { IngestHttpError } from '../../../ingest-api/errors.js';
import { parseIngestBody } from '../../../ingest-api/parse-ingest-body.js';

const parse = (extra: Record<string, unknown>) =>
  parseIngestBody(
    Buffer.from(JSON.stringify({ type: 'groups.update', chat_jid: null, payload: { id: 'g' }, ...extra })),
    'application/json'
  );

describe('parseIngestBody: account_jid and legacy_event_id', () => {
  it('reads both when valid, null when absent', () => {
    expect(parse({})).toMatchObject({ accountJid: null, legacyEventId: null });
    expect(
      parse({ account_jid: '5500000000000@s.whatsapp.net', legacy_event_id: 'A441F4EC-890D-57CA-901C-313F118BD48B' })
    ).toMatchObject({
      accountJid: '5500000000000@s.whatsapp.net',
      legacyEventId: 'a441f4ec-890d-57ca-901c-313f118bd48b',
    });
  });

  it('answers 422 for a legacy id that is no UUID or an account JID that is no short string', () => {
    for (const extra of [{ legacy_event_id: 'nope' }, { legacy_event_id: 7 }, { account_jid: 'x'.repeat(256) }]) {
      const error = (() => {
        try {
          parse(extra);
        } catch (err) {
          return err;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(IngestHttpError);
      expect(error).toMatchObject({ code: 'WA_ERR_INVALID_BODY' });
    }
  });
});

describe('parseIngestBody: source (ADR 0016)', () => {
  it('reads history, on_demand and replay, and takes a body without it as live', () => {
    expect(parse({}).source).toBe('live');
    for (const source of ['live', 'history', 'on_demand', 'replay']) expect(parse({ source }).source).toBe(source);
  });

  it('answers 422 for a source it does not know', () => {
    expect(() => parse({ source: 'backfill' })).toThrow(IngestHttpError);
    expect(() => parse({ source: 3 })).toThrow(/invalid fields/);
  });
});
