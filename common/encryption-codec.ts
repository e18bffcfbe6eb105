import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec, ValueError } from '@temporalio/common';
// CommonJS package: Node's ESM loader exposes only its default export.
import proto from '@temporalio/proto';
import type { PayloadEncryptionKey } from './payload-encryption-keys.js';

/** Metadata `encoding` of an encrypted payload; the same string as Temporal's encryption samples. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload (architecture.md §14: rotation). */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const { Payload: PayloadProto } = proto.temporal.api.common.v1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * AES-256-GCM payload codec (architecture.md §14, issue #13), after Temporal's `samples-typescript/encryption`:
 * each payload is serialized as a `temporal.api.common.v1.Payload` protobuf, encrypted with the first
 * key, and replaced by a payload whose data is `nonce(12) ‖ ciphertext ‖ tag(16)` and whose metadata
 * is only `encoding: binary/encrypted` and `encryption-key-id`. Decoding picks the key by that id, so
 * histories written under older keys stay readable while those keys are configured.
 * Payloads not marked `binary/encrypted` pass through on decode (histories from before the codec).
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keysById: ReadonlyMap<string, Buffer>;
  private readonly encryptingKey: PayloadEncryptionKey;

  /** @param keys - at least one; the first encrypts. @throws Error when `keys` is empty. */
  constructor(keys: readonly PayloadEncryptionKey[]) {
    const [first] = keys;
    if (!first) throw new Error('EncryptionCodec needs at least one key');
    this.encryptingKey = first;
    this.keysById = new Map(keys.map((entry) => [entry.id, entry.key]));
  }

  /** Encrypts every payload with the first key. */
  encode(payloads: Payload[]): Promise<Payload[]> {
    // Inside the executor, so a failing payload rejects the promise instead of throwing synchronously.
    return new Promise((resolve) => resolve(payloads.map((payload) => this.encryptOne(payload))));
  }

  /**
   * Decrypts every `binary/encrypted` payload; others pass through.
   * @throws ValueError when the key id is unknown or the ciphertext fails authentication.
   */
  decode(payloads: Payload[]): Promise<Payload[]> {
    // Inside the executor, so a failing payload rejects the promise instead of throwing synchronously.
    return new Promise((resolve) => resolve(payloads.map((payload) => this.decryptOne(payload))));
  }

  private encryptOne(payload: Payload): Payload {
    const plain = PayloadProto.encode(payload).finish();
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptingKey.key, nonce);
    const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: utf8.encode(ENCRYPTED_ENCODING),
        [METADATA_ENCRYPTION_KEY_ID]: utf8.encode(this.encryptingKey.id),
      },
      data,
    };
  }

  private decryptOne(payload: Payload): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (!encoding || fromUtf8.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyIdBytes = payload.metadata?.[METADATA_ENCRYPTION_KEY_ID];
    const keyId = keyIdBytes ? fromUtf8.decode(keyIdBytes) : '';
    const key = this.keysById.get(keyId);
    if (!key) throw new ValueError(`payload encrypted with key "${keyId}", which is not in PAYLOAD_ENCRYPTION_KEYS`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new ValueError('encrypted payload is too short');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch (err) {
      throw new ValueError(`payload with key "${keyId}" failed authentication (wrong key or tampered)`, err);
    }
    return PayloadProto.decode(plain);
  }
}
