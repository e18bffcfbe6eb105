import { describe, expect, it } from 'vitest';
import { IngestHttpError } from '../../../ingest-api/errors.js';
import {
  DELIVER_BY_MAX_HORIZON_MS,
  SEND_METADATA_MAX_BYTES,
  checkDeliverBy,
  parseSendRequest,
} from '../../../ingest-api/send/send-request.js';

const NOW = Date.parse('2026-12-04T12:00:00Z');
const body = (extra: Record<string, unknown>) => ({
  to: '120363000000000001@g.us',
  text: 'hi',
  category: 'otp',
  ...extra,
});

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    if (err instanceof IngestHttpError) return err.code;
    throw err;
  }
}

describe('bounds of a send request (ADR 0017)', () => {
  it('takes a deadline up to 30 days ahead and refuses the past and anything farther', () => {
    expect(DELIVER_BY_MAX_HORIZON_MS).toBe(30 * 24 * 3_600_000);
    expect(checkDeliverBy(null, NOW)).toBeNull();
    expect(checkDeliverBy(NOW + 60_000, NOW)).toBeNull();
    expect(checkDeliverBy(NOW + DELIVER_BY_MAX_HORIZON_MS, NOW)).toBeNull();
    expect(checkDeliverBy(NOW, NOW)?.code).toBe('WA_ERR_DELIVER_BY_PASSED');
    expect(checkDeliverBy(NOW + DELIVER_BY_MAX_HORIZON_MS + 1, NOW)?.code).toBe('WA_ERR_DELIVER_BY_TOO_FAR');
    expect(checkDeliverBy(Date.parse('9999-12-31T00:00:00Z'), NOW)).toMatchObject({
      code: 'WA_ERR_DELIVER_BY_TOO_FAR',
      statusCode: 422,
    });
  });

  it('takes metadata up to 16 KiB of JSON in UTF-8 and refuses one byte more', () => {
    expect(SEND_METADATA_MAX_BYTES).toBe(16_384);
    // {"n":"…"} is 8 bytes around the string.
    const fits = { n: 'x'.repeat(SEND_METADATA_MAX_BYTES - 8) };
    expect(parseSendRequest(body({ metadata: fits }), 4096).metadata).toEqual(fits);
    expect(
      codeOf(() => parseSendRequest(body({ metadata: { n: 'x'.repeat(SEND_METADATA_MAX_BYTES - 7) } }), 4096))
    ).toBe('WA_ERR_METADATA_TOO_LARGE');
    // Counted in bytes: 'é' is two.
    expect(codeOf(() => parseSendRequest(body({ metadata: { n: 'é'.repeat(8_200) } }), 4096))).toBe(
      'WA_ERR_METADATA_TOO_LARGE'
    );
  });
});
