import { defaultPayloadConverter, ValueError } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-schema.js';
import { EncryptionCodec, METADATA_ENCRYPTION_KEY_ID } from '../../../common/encryption-codec.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { ACTIVITY_NOT_STARTED_DETAIL } from '../../../common/server-written-payload.js';
import { loadWorkerConfig } from '../../../worker/config.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';

const keyA = `a:${Buffer.alloc(32, 1).toString('base64')}`;
const keyB = `b:${Buffer.alloc(32, 2).toString('base64')}`;
const codecWith = (value: string) => new EncryptionCodec(envPayloadEncryptionKeys.parse(value) ?? []);
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

describe('EncryptionCodec', () => {
  it('hides the payload and names the encrypting key in the metadata', async () => {
    const payload = defaultPayloadConverter.toPayload({ text: 'oi, tudo bem?', phone: '5511987654321' });
    const [encoded] = await codecWith(`${keyA},${keyB}`).encode([payload]);
    expect(text(encoded?.data)).not.toContain('tudo bem');
    expect(text(encoded?.metadata?.[METADATA_ENCRYPTION_KEY_ID])).toBe('a');
    expect(text(encoded?.metadata?.['encoding'])).toBe('binary/encrypted');
  });

  it('decodes a payload encrypted under an older key after rotation', async () => {
    const payload = defaultPayloadConverter.toPayload({ text: 'rotated' });
    const encoded = await codecWith(keyA).encode([payload]);
    const [decoded] = await codecWith(`${keyB},${keyA}`).decode(encoded);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ text: 'rotated' });
  });

  it('rejects a payload whose key is no longer configured, and a tampered one', async () => {
    const encoded = await codecWith(keyA).encode([defaultPayloadConverter.toPayload('x')]);
    await expect(codecWith(keyB).decode(encoded)).rejects.toBeInstanceOf(ValueError);
    const tampered = { ...encoded[0]!, data: Buffer.from(encoded[0]!.data!).fill(0, 20, 21) };
    await expect(codecWith(keyA).decode([tampered])).rejects.toThrow(/failed authentication/);
  });

  it('refuses a payload that is not encrypted, naming the workflow, and tells onRefused (ADR 0022)', async () => {
    const payload = defaultPayloadConverter.toPayload({ clear: true });
    const refusals: unknown[] = [];
    const codec = new EncryptionCodec(envPayloadEncryptionKeys.parse(keyA) ?? [], {
      onRefused: (refusal) => refusals.push(refusal),
    });
    const context = { type: 'workflow', namespace: 'default', workflowId: 'forged-1' } as const;
    await expect(codec.decode([payload], context)).rejects.toThrow(/not encrypted.*\(workflow forged-1\)/);
    const tampered = await codecWith(keyA).encode([defaultPayloadConverter.toPayload('x')]);
    await expect(codec.decode([{ ...tampered[0]!, data: Buffer.alloc(40) }], context)).rejects.toThrow(
      /failed authentication/
    );
    expect(refusals).toEqual([
      { reason: 'unencrypted', workflowId: 'forged-1' },
      { reason: 'unauthenticated', workflowId: 'forged-1' },
    ]);
  });

  it('inspects a stored payload for a squat check without telling onRefused (ADR 0026 §7)', async () => {
    const refusals: unknown[] = [];
    const codec = new EncryptionCodec(envPayloadEncryptionKeys.parse(keyA) ?? [], {
      onRefused: (refusal) => refusals.push(refusal),
    });
    const context = { type: 'workflow', namespace: 'default', workflowId: 'squatter-1' } as const;
    await expect(codec.inspect([defaultPayloadConverter.toPayload({ clear: true })], context)).rejects.toThrow(
      /not encrypted/
    );
    const [inspected] = await codec.inspect(await codec.encode([defaultPayloadConverter.toPayload('ok')]), context);
    expect(defaultPayloadConverter.fromPayload(inspected!)).toBe('ok');
    expect(refusals).toEqual([]);
  });

  it('lets a clear payload through only when told to (the codec server shows forgeries)', async () => {
    const payload = defaultPayloadConverter.toPayload({ clear: true });
    const lenient = new EncryptionCodec(envPayloadEncryptionKeys.parse(keyA) ?? [], { isClearAllowed: true });
    expect(await lenient.decode([payload])).toEqual([payload]);
  });
});

describe('EncryptionCodec and the detail the server writes in clear (ADR 0026)', () => {
  const codec = codecWith(keyA);
  const serverDetail = defaultPayloadConverter.toPayload(ACTIVITY_NOT_STARTED_DETAIL);
  const activity = {
    type: 'activity',
    namespace: 'default',
    workflowId: 'send-1',
    activityId: '3',
    isLocal: false,
  } as const;

  it("accepts the server's not-started cancellation detail in an activity's resolution", async () => {
    expect(await codec.decode([serverDetail], activity)).toEqual([serverDetail]);
  });

  it('refuses the same bytes as a workflow input or signal argument, or from a local activity', async () => {
    const workflow = { type: 'workflow', namespace: 'default', workflowId: 'send-1' } as const;
    await expect(codec.decode([serverDetail], workflow)).rejects.toThrow(/not encrypted/);
    await expect(codec.decode([serverDetail])).rejects.toThrow(/not encrypted/);
    await expect(codec.decode([serverDetail], { ...activity, isLocal: true })).rejects.toThrow(/not encrypted/);
  });

  it('refuses any other clear payload in an activity resolution (a forged activity result)', async () => {
    const forgedResults = [
      defaultPayloadConverter.toPayload('ACTIVITY_ID_NOT_STARTED '),
      defaultPayloadConverter.toPayload({ detail: ACTIVITY_NOT_STARTED_DETAIL }),
      { ...serverDetail, metadata: { ...serverDetail.metadata, extra: new Uint8Array([1]) } },
    ];
    for (const forged of forgedResults) await expect(codec.decode([forged], activity)).rejects.toThrow(/not encrypted/);
  });
});

describe('PAYLOAD_ENCRYPTION_KEYS', () => {
  const base = { WEBHOOK_URL: 'http://127.0.0.1:1/x', WHATSAPP_WEBHOOK_SECRET: TEST_SECRET };

  it('is optional: unset means no codec', () => {
    expect(loadWorkerConfig(base).PAYLOAD_ENCRYPTION_KEYS).toBeUndefined();
  });

  it.each([
    ['no id', Buffer.alloc(32).toString('base64'), /id:base64/],
    ['a short key', `k:${Buffer.alloc(16).toString('base64')}`, /must be 32 bytes/],
    ['not base64', 'k:***', /not base64/],
    ['a duplicate id', `${keyA},${keyA}`, /appears twice/],
  ])('is a clear config error for %s', (_label, value, message) => {
    let error: unknown;
    try {
      loadWorkerConfig({ ...base, PAYLOAD_ENCRYPTION_KEYS: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.join('\n')).toMatch(message);
    expect((error as ConfigError).message).not.toContain(Buffer.alloc(32, 1).toString('base64'));
  });
});
