import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec.js';
import type { PayloadEncryptionKeys } from './payload-encryption-keys.js';

/**
 * The data converter every Temporal client and worker of wa-lake uses (architecture.md §14, issue #13): the
 * default payload converter plus the AES-256-GCM {@link EncryptionCodec} when keys are configured.
 * Pass the result as `dataConverter` to `new Client`, `Worker.create` and test environments; the
 * codec runs outside the workflow sandbox, so no `payloadConverterPath` is needed.
 *
 * @param keys - parsed `PAYLOAD_ENCRYPTION_KEYS`; undefined or empty → `undefined` (SDK default, clear payloads).
 */
export function createDataConverter(keys: PayloadEncryptionKeys): DataConverter | undefined {
  if (!keys || keys.length === 0) return undefined;
  return { payloadCodecs: [new EncryptionCodec(keys)] };
}

/**
 * Logs once at start, as a warning, that Temporal payloads (event bodies: message text, phone numbers)
 * are stored in clear because `PAYLOAD_ENCRYPTION_KEYS` is unset (architecture.md §14).
 */
export function warnWhenPayloadsInClear(
  logger: { warn(obj: object, msg: string): void },
  keys: PayloadEncryptionKeys
): void {
  if (keys && keys.length > 0) return;
  logger.warn(
    { key: 'PAYLOAD_ENCRYPTION_KEYS' },
    'PAYLOAD_ENCRYPTION_KEYS is not set: event bodies are stored in clear in Temporal histories (see docs/runbook.md, Privacy)'
  );
}
