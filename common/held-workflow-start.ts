import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec.js';

/** What started the workflow that holds an id: its type and its first input, decrypted when a key holder wrote it. */
export interface HeldWorkflowStart {
  workflowType: string | null;
  /** The decoded first argument; undefined when the start carried none or it does not decrypt. */
  input: unknown;
  /** Whether the first argument decrypted with the client's codec (only a `PAYLOAD_ENCRYPTION_KEYS` holder writes one). */
  isDecryptable: boolean;
}

/**
 * Decodes a stored payload with the client's codecs and payload converter, in a workflow context for `workflowId`
 * (ADR 0022: the strict codec throws on a payload no key holder wrote, here without reporting the refusal).
 *
 * @throws when a codec refuses the payload.
 */
export async function decodeStoredInput(client: Client, payload: Payload, workflowId: string): Promise<unknown> {
  const converter = client.options.loadedDataConverter;
  let payloads: Payload[] = [payload];
  // Codecs encode in order and decode in reverse (the SDK's rule).
  for (const codec of [...converter.payloadCodecs].reverse()) {
    const context = { type: 'workflow' as const, namespace: client.options.namespace, workflowId };
    // The check raises its own alert: the worker's refusal alerter must not hear of it too.
    payloads = await (codec instanceof EncryptionCodec
      ? codec.inspect(payloads, context)
      : codec.decode(payloads, context));
  }
  const [decoded] = payloads;
  return decoded ? converter.payloadConverter.fromPayload<unknown>(decoded) : undefined;
}

/**
 * Reads the first history event of the latest run of `workflowId` (a reset keeps it) for a squat check (ADR 0022,
 * ADR 0026): was the workflow holding a deterministic id started by a key holder, with an input bound to that id?
 *
 * @throws whatever the history call throws (Temporal unreachable, workflow not found).
 */
export async function readHeldWorkflowStart(client: Client, workflowId: string): Promise<HeldWorkflowStart> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const started = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const workflowType = started?.workflowType?.name ?? null;
  const payload = started?.input?.payloads?.[0];
  if (!payload) return { workflowType, input: undefined, isDecryptable: false };
  try {
    return { workflowType, input: await decodeStoredInput(client, payload, workflowId), isDecryptable: true };
  } catch {
    return { workflowType, input: undefined, isDecryptable: false };
  }
}
