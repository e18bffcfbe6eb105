import { randomUUID } from 'node:crypto';

/** A control signal's binding and identity (the shape of `ControlSignalStamp` in workflows/send-contracts.ts). */
export interface IssuedControlStamp {
  target: string;
  issuedAtMs: number;
  nonce: string;
}

/**
 * The binding and identity every sender of a gate control signal (`pauseSending`, `resumeSending`) puts inside
 * the encrypted argument (ADR 0026 §4, §5): the gate's workflow id, the issuing time (epoch ms) and a random
 * nonce. Shared by the CLI (`wa-lake sending pause|resume`), the collector's session and the worker's
 * `pauseAccountSending`.
 *
 * @param gateWorkflowId - the gate the signal is for (`sendGateWorkflowId(account)`).
 * @param nowMs - the issuing time; injectable for tests.
 */
export function stampControlSignal(gateWorkflowId: string, nowMs = Date.now()): IssuedControlStamp {
  return { target: gateWorkflowId, issuedAtMs: nowMs, nonce: randomUUID() };
}
