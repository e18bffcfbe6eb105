import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type EncryptionCodecOptions } from './encryption-codec.js';
import type { PayloadEncryptionKeys } from './payload-encryption-keys.js';

/**
 * Path of `workflows/failure-converter.cjs` (`DefaultFailureConverter` with `encodeCommonAttributes`), from source
 * (`common/` next to `workflows/`) or from compiled JavaScript (`dist/common/`, with `workflows/` beside `dist/`).
 */
export function resolveFailureConverterPath(moduleUrl: string = import.meta.url): string {
  const candidates = ['../workflows/failure-converter.cjs', '../../workflows/failure-converter.cjs'].map((relative) =>
    fileURLToPath(new URL(relative, moduleUrl))
  );
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`failure converter not found at ${candidates.join(' or ')}`);
  return found;
}

/**
 * The data converter every Temporal client and worker of wa-lake uses (architecture.md §14, ADR 0010): the
 * default payload converter plus the AES-256-GCM {@link EncryptionCodec} when keys are configured, and then a
 * failure converter that encodes failure messages and stack traces as a payload, so the codec encrypts them too
 * (`encodeCommonAttributes`, ADR 0022). Pass the result as `dataConverter` to `new Client`,
 * `Worker.create` and test environments, and `failureConverterPath` to `bundleWorkflowCode` for a prebuilt bundle.
 *
 * With keys, a payload that is not encrypted under one of them is refused on decode (ADR 0022).
 *
 * @param keys - parsed `PAYLOAD_ENCRYPTION_KEYS`; undefined or empty → `undefined` (SDK default, clear payloads).
 * @param options.onRefused - hears of each refused payload (the worker alerts, naming the workflow).
 */
export function createDataConverter(
  keys: PayloadEncryptionKeys,
  options: Pick<EncryptionCodecOptions, 'onRefused'> = {}
): DataConverter | undefined {
  if (!keys || keys.length === 0) return undefined;
  return {
    payloadCodecs: [new EncryptionCodec(keys, options)],
    failureConverterPath: resolveFailureConverterPath(),
  };
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
