import { patched } from '@temporalio/workflow';
import { alertRefusedSignal } from './forged-input.js';
import { CONTROL_SIGNAL_FRESHNESS_MS, type ControlSignalStamp } from './send-contracts.js';

/**
 * The patch id under which a control signal that is unstamped, stale or not newer than the last one applied is
 * ignored (ADR 0026 §5). Asked only when refusing, so a genuine history gets no marker; a gate history written
 * before the stamps replays every control signal as applied. The id must never change.
 */
const CONTROL_SIGNAL_ORDER_PATCH = 'control-signal-order';

/** Identity of a control signal the gate applied. */
export interface AppliedControl {
  issuedAtMs: number;
  nonce: string;
}

/**
 * Orders the gate's control signals (`pauseSending`, `resumeSending`; ADR 0026 §5): one is applied only when its
 * stamp `(issuedAtMs, nonce)` is greater than the last applied one and `issuedAtMs` lies within
 * {@link CONTROL_SIGNAL_FRESHNESS_MS} of the gate's time, so an old signal copied from the gate's history and
 * replayed cannot undo a later pause or resume. Every refusal raises one `payload_refused` alert. Workflow code;
 * the last applied stamp is carried across continue-as-new.
 */
export class ControlSignalOrder {
  constructor(private last: AppliedControl | null) {}

  /** Whether to apply the signal `signalName` with `stamp`; records it as the last one when so. */
  admit(signalName: string, stamp: ControlSignalStamp): boolean {
    const reason = this.refusalOf(stamp);
    if (reason === null) {
      this.last = { issuedAtMs: stamp.issuedAtMs ?? 0, nonce: stamp.nonce ?? '' };
      return true;
    }
    if (!patched(CONTROL_SIGNAL_ORDER_PATCH)) return true;
    alertRefusedSignal(signalName, reason, { issuedAtMs: stamp.issuedAtMs ?? null });
    return false;
  }

  /** The last applied stamp, for the carry. */
  snapshot(): AppliedControl | null {
    return this.last;
  }

  private refusalOf({ issuedAtMs, nonce }: ControlSignalStamp): string | null {
    if (typeof issuedAtMs !== 'number' || typeof nonce !== 'string') return 'control_signal_unstamped';
    if (Math.abs(Date.now() - issuedAtMs) > CONTROL_SIGNAL_FRESHNESS_MS) return 'control_signal_stale';
    const last = this.last;
    const isNewer =
      last === null || issuedAtMs > last.issuedAtMs || (issuedAtMs === last.issuedAtMs && nonce > last.nonce);
    return isNewer ? null : 'control_signal_replayed';
  }
}
