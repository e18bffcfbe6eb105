import { describe, expect, it } from 'vitest';
import { redactUrlCredentials, withoutUrlCredentials } from '../../../common/redact-url-credentials.js';
import { serializeError } from '../../../common/log-serializers.js';

describe('redactUrlCredentials (ADR 0022)', () => {
  it('removes user and password of every URL and leaves other text alone', () => {
    expect(redactUrlCredentials('POST https://alice:s3cret@hooks.example/x?a=1 and http://tok@h:8080/')).toBe(
      'POST https://***@hooks.example/x?a=1 and http://***@h:8080/'
    );
    expect(redactUrlCredentials('mail bob@example.com at https://example.com/a@b')).toBe(
      'mail bob@example.com at https://example.com/a@b'
    );
  });

  it("copies fetch's error for a credentialed URL without the credentials, in message, stack and log record", async () => {
    const err = await fetch('http://user:pw-secret@127.0.0.1:1/x').catch((caught: unknown) => caught);
    expect(String((err as Error).message)).toContain('pw-secret');
    const clean = withoutUrlCredentials(err as Error);
    expect(clean.message).not.toContain('pw-secret');
    expect(clean.stack).not.toContain('pw-secret');
    expect(clean.name).toBe((err as Error).name);
    expect(JSON.stringify(serializeError(err))).not.toContain('pw-secret');
  });

  it('returns an error without credentials unchanged', () => {
    const err = new Error('connect ECONNREFUSED 127.0.0.1:1');
    expect(withoutUrlCredentials(err)).toBe(err);
  });
});
