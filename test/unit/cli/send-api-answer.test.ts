import { describe, expect, it } from 'vitest';
import { IngestHttpError } from '../../../ingest-api/errors.js';
import { toProblemDetails } from '../../../ingest-api/problem-details.js';
import { parseSendRequest } from '../../../ingest-api/send/send-request.js';
import { describeFetchFailure, describeSendApiRefusal } from '../../../cli/send-api-answer.js';

/** The problem JSON the send API answers for `body`, as `wa-lake send` receives it. */
function answerTo(body: Record<string, unknown>): string {
  try {
    parseSendRequest(body, 4096);
  } catch (err) {
    if (err instanceof IngestHttpError) return JSON.stringify(toProblemDetails(err));
    throw err;
  }
  throw new Error('accepted');
}

describe('describeSendApiRefusal', () => {
  it('says a date without time and offset, and a missing category, in words', () => {
    const deliverBy = answerTo({
      to: '120363000000000001@g.us',
      text: 'hi',
      category: 'otp',
      deliver_by: '2100-01-01',
    });
    expect(describeSendApiRefusal(deliverBy)).toBe(
      'Invalid body: body has invalid fields (deliver_by: deliver_by needs a date, a time and an offset, such as ' +
        '2025-06-01T12:00:00Z or 2025-06-01T09:00:00-03:00)'
    );
    const category = answerTo({ to: '120363000000000001@g.us', text: 'hi' });
    expect(describeSendApiRefusal(category)).toContain('category: category is required');
  });

  it('quotes an answer that is not a problem', () => {
    expect(describeSendApiRefusal('<html>Bad Gateway</html>')).toBe('<html>Bad Gateway</html>');
  });
});

describe('describeFetchFailure', () => {
  it('names the URL and says a blocked port and a refused connection in words', async () => {
    const blocked = new URL('http://127.0.0.1:9/api/v1/messages');
    const failure = await fetch(blocked).catch((err: unknown) => err);
    expect(describeFetchFailure(failure, blocked)).toBe(
      'cannot reach the send API at http://127.0.0.1:9/api/v1/messages: port 9 is one fetch never connects to ' +
        "(a blocked port such as 9 or 25); use the API's port"
    );
    const refused = new URL('http://127.0.0.1:8080/api/v1/messages');
    // What undici rejects with when nothing listens on the port.
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' });
    const error = new TypeError('fetch failed', { cause });
    expect(describeFetchFailure(error, refused)).toContain('nothing listens there (connection refused)');
  });
});
