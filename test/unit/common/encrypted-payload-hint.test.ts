import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { withEncryptedPayloadHint } from '../../../common/encrypted-payload-hint.js';
import { EncryptionCodec } from '../../../common/encryption-codec.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';

const key = `a:${Buffer.alloc(32, 1).toString('base64')}`;

describe('withEncryptedPayloadHint', () => {
  it('names PAYLOAD_ENCRYPTION_KEYS when the SDK cannot read a payload the codec sealed', async () => {
    const [sealed] = await new EncryptionCodec(envPayloadEncryptionKeys.parse(key) ?? []).encode([
      defaultPayloadConverter.toPayload({ eventId: 'x' }),
    ]);
    // What a process without the keys meets: the SDK's own converter refuses the encoding.
    const sdkError = ((): string => {
      try {
        defaultPayloadConverter.fromPayload(sealed!);
        return 'no error';
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    })();
    expect(sdkError).toContain('binary/encrypted');
    expect(withEncryptedPayloadHint(sdkError)).toMatch(/encrypted; set PAYLOAD_ENCRYPTION_KEYS/);
  });

  it('leaves other messages as they are', () => {
    expect(withEncryptedPayloadHint('connect ECONNREFUSED 127.0.0.1:7233')).toBe('connect ECONNREFUSED 127.0.0.1:7233');
  });
});
