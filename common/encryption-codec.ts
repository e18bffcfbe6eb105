import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  METADATA_ENCODING_KEY,
  type Payload,
  type PayloadCodec,
  type SerializationContext,
  ValueError,
} from '@temporalio/common';
// CommonJS package: Node's ESM loader exposes only its default export.
import proto from '@temporalio/proto';
import type { PayloadEncryptionKey } from './payload-encryption-keys.js';
import { isServerWrittenDetail } from './server-written-payload.js';

/** Metadata `encoding` of an encrypted payload; the same string as Temporal's encryption samples. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload (architecture.md §14: rotation). */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const { Payload: PayloadProto } = proto.temporal.api.common.v1;

/** Why the codec refused a payload on decode (ADR 0022). */
export type PayloadRefusalReason = 'unencrypted' | 'unknown_key' | 'unauthenticated';

/** One refused payload: the reason and, when the SDK says, the workflow that owns it. */
export interface PayloadRefusal {
  reason: PayloadRefusalReason;
  workflowId: string | null;
}

/** Options of {@link EncryptionCodec}. */
export interface EncryptionCodecOptions {
  /**
   * Let payloads not marked `binary/encrypted` through on decode. Default false: only a key holder can make a
   * payload the worker acts on (ADR 0022). The codec server sets it, to show an operator what was forged.
   */
  isClearAllowed?: boolean;
  /** Called for every refused payload before decode throws (the worker alerts with it). */
  onRefused?: (refusal: PayloadRefusal) => void;
}
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * AES-256-GCM payload codec (architecture.md §14, ADR 0010), after Temporal's `samples-typescript/encryption`:
 * each payload is serialized as a `temporal.api.common.v1.Payload` protobuf, encrypted with the first
 * key, and replaced by a payload whose data is `nonce(12) ‖ ciphertext ‖ tag(16)` and whose metadata
 * is only `encoding: binary/encrypted` and `encryption-key-id`. Decoding picks the key by that id, so
 * histories written under older keys stay readable while those keys are configured.
 * A payload not marked `binary/encrypted` is refused on decode (ADR 0022: whoever reaches Temporal
 * without a key must not start work the worker acts on), unless `isClearAllowed` or it is the one detail the
 * server itself writes in clear, in an activity's resolution (ADR 0026, {@link isServerWrittenDetail}).
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keysById: ReadonlyMap<string, Buffer>;
  private readonly encryptingKey: PayloadEncryptionKey;

  /** @param keys - at least one; the first encrypts. @throws Error when `keys` is empty. */
  constructor(
    keys: readonly PayloadEncryptionKey[],
    private readonly options: EncryptionCodecOptions = {}
  ) {
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
   * Decrypts every payload.
   * @throws ValueError when a payload is not encrypted (unless `isClearAllowed`), its key id is unknown or its
   *   ciphertext fails authentication; `onRefused` hears of it first, with the owning workflow from `context`.
   */
  decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    // Inside the executor, so a failing payload rejects the promise instead of throwing synchronously.
    return new Promise((resolve) => resolve(payloads.map((payload) => this.decryptOne(payload, context))));
  }

  /**
   * Decrypts like {@link decode} without telling `onRefused`: for a squat check (ADR 0022, ADR 0026 §7), which
   * inspects another workflow's stored input and raises its own alert, so a refusal is its answer, not an event.
   * @throws ValueError as {@link decode}.
   */
  inspect(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((payload) => this.decryptOne(payload, context, false))));
  }

  private refuse(
    isReported: boolean,
    reason: PayloadRefusalReason,
    message: string,
    context?: SerializationContext,
    cause?: unknown
  ): never {
    const workflowId = context && 'workflowId' in context && context.workflowId ? context.workflowId : null;
    if (isReported) this.options.onRefused?.({ reason, workflowId });
    throw new ValueError(workflowId ? `${message} (workflow ${workflowId})` : message, cause);
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

  private decryptOne(payload: Payload, context?: SerializationContext, isReported = true): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (!encoding || fromUtf8.decode(encoding) !== ENCRYPTED_ENCODING) {
      if (this.options.isClearAllowed || isServerWrittenDetail(payload, context)) return payload;
      this.refuse(
        isReported,
        'unencrypted',
        'payload is not encrypted: only a PAYLOAD_ENCRYPTION_KEYS holder may write one',
        context
      );
    }
    const keyIdBytes = payload.metadata?.[METADATA_ENCRYPTION_KEY_ID];
    const keyId = keyIdBytes ? fromUtf8.decode(keyIdBytes) : '';
    const key = this.keysById.get(keyId);
    if (!key) {
      this.refuse(
        isReported,
        'unknown_key',
        `payload encrypted with key "${keyId}", which is not in PAYLOAD_ENCRYPTION_KEYS`,
        context
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES)
      this.refuse(isReported, 'unauthenticated', 'encrypted payload is too short', context);
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch (err) {
      this.refuse(
        isReported,
        'unauthenticated',
        `payload with key "${keyId}" failed authentication (wrong key or tampered)`,
        context,
        err
      );
    }
    return PayloadProto.decode(plain);
  }
}
