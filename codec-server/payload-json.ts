import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/**
 * The JSON shape of Temporal's remote codec protocol (the Web UI and `temporal --codec-endpoint` POST it
 * to `/encode` and `/decode`): `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`, i.e. the
 * proto3 JSON form of `temporal.api.common.v1.Payloads`.
 */
export const payloadsJsonSchema = z.strictObject({
  // proto3 JSON leaves an empty list out: the `temporal` CLI posts `{}` for a signal or query without input.
  payloads: z
    .array(
      z.object({
        metadata: z.record(z.string(), z.string()).nullish(),
        data: z.string().nullish(),
      })
    )
    .default([]),
});

/** A request or response body of the codec protocol. */
export type PayloadsJson = z.output<typeof payloadsJsonSchema>;

/** JSON payloads (base64 fields) → SDK payloads (bytes). */
export function payloadsFromJson(body: PayloadsJson): Payload[] {
  return body.payloads.map((payload) => ({
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')])
    ),
    data: Buffer.from(payload.data ?? '', 'base64'),
  }));
}

/** SDK payloads (bytes) → JSON payloads (base64 fields). */
export function payloadsToJson(payloads: readonly Payload[]): PayloadsJson {
  return {
    payloads: payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value ?? new Uint8Array()).toString('base64'),
        ])
      ),
      data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
    })),
  };
}
