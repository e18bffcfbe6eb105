import { ENCRYPTED_ENCODING } from './encryption-codec.js';

/**
 * Explains the Temporal SDK's `Unknown encoding: binary/encrypted`: the payloads were sealed by the payload
 * codec (architecture.md §14, ADR 0010) and this process has no `PAYLOAD_ENCRYPTION_KEYS` to open them.
 * Any other message is returned unchanged.
 *
 * @param message - an error message as the SDK or a command reported it.
 */
export function withEncryptedPayloadHint(message: string): string {
  if (!message.includes(ENCRYPTED_ENCODING)) return message;
  return `${message} — these Temporal payloads are encrypted; set PAYLOAD_ENCRYPTION_KEYS to the keys the worker uses (docs/configuration.md)`;
}
