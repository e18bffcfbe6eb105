import {
  condition,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  SEND_REASON_CODES,
  WA_SEND_STATE,
  dispatchGrantedSignal,
  isForwardTransition,
  sendAckSignal,
  sendGateWorkflowId,
  sendStatusQuery,
  type SendFailureTypeName,
  type SendMessageInput,
  type SendMessageResult,
  type SendState,
  type SendTransition,
} from './send-contracts.js';
import { classifyAttempt, proxyDispatchActivity, type DispatchActivity } from './dispatch-attempt.js';
import { dispatchBeforeDeadline } from './dispatch-before-deadline.js';
import { setBoundSignalHandler } from './forged-input.js';
import { createStatusWebhookNotifier } from './status-webhook-notifier.js';
import { ALERT_ACTIVITY_OPTIONS, BOOKKEEPING_ACTIVITY_OPTIONS } from './activity-options.js';

const { reportSendTransition, requestDispatchSlot, pauseAccountSending } =
  proxyActivities<Activities>(BOOKKEEPING_ACTIVITY_OPTIONS);
const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

const DEFAULT_ACK_GRACE_MS = 15 * 60_000;
const DEFAULT_ACK_WAIT_MS = 7 * 24 * 60 * 60_000;
const DEFAULT_RETRY_INITIAL_MS = 2_000;
const RETRY_MAX_MS = 5 * 60_000;

/**
 * The state of one `sendMessage` run and its named steps, after the Temporal sample
 * `message-passing/safe-message-handlers`: signal handlers and steps share this object instead of closures over
 * loose variables, and the workflow function reads as the sequence of steps.
 */
export class SendMessageRun {
  state: SendState = 'queued';
  reasonCode: string | null = null;
  grantedAtMs: number | null = null;
  dispatchAttempts = 0;
  readonly transitions: SendTransition[] = [{ state: 'queued', at: new Date().toISOString(), reasonCode: null }];
  private readonly unreported: SendTransition[] = [];
  private readonly deliverByMs: number | null;
  private readonly dispatchWhatsAppMessage: DispatchActivity;
  // Status webhooks (ADR 0011); only runs started with `statusWebhook` issue commands for them.
  private readonly statusWebhooks: ReturnType<typeof createStatusWebhookNotifier>;

  constructor(private readonly input: SendMessageInput) {
    this.deliverByMs = input.deliverBy === null ? null : Date.parse(input.deliverBy);
    this.dispatchWhatsAppMessage = proxyDispatchActivity(input.accountId);
    this.statusWebhooks = createStatusWebhookNotifier(input.messageId, input.statusWebhook === true);
  }

  /** ACKs move the state forward whenever they arrive; the gate's grant is kept; the query reads the history. */
  installHandlers(): void {
    // Both arguments name this workflow (ADR 0026 §4): an ACK copied from another message's history is refused.
    setBoundSignalHandler(sendAckSignal, (ack) =>
      this.advance(ack.status, ack.status === 'failed' ? (ack.reasonCode ?? 'ack_error') : null)
    );
    setBoundSignalHandler(dispatchGrantedSignal, ({ grantedAtMs: at }) => {
      this.grantedAtMs ??= at;
    });
    setHandler(sendStatusQuery, () => ({ state: this.state, transitions: this.transitions }));
  }

  /** Moves to `to` when that is forward: recorded, to be reported, and shown as the search attribute. */
  advance(to: SendState, reason: string | null = null): void {
    if (!isForwardTransition(this.state, to)) return;
    this.state = to;
    if (reason !== null) this.reasonCode = reason;
    const transition = { state: to, at: new Date().toISOString(), reasonCode: reason };
    this.transitions.push(transition);
    this.unreported.push(transition);
    upsertSearchAttributes([{ key: WA_SEND_STATE, value: to }]);
  }

  /** Reports every transition not yet reported to the lake, each followed by its status webhook. */
  async flush(): Promise<void> {
    for (let next = this.unreported.shift(); next; next = this.unreported.shift()) {
      await reportSendTransition({ messageId: this.input.messageId, ...next });
      this.statusWebhooks.notify(next, this.transitions.indexOf(next) + 1);
    }
  }

  /** The `queued` status webhook, before anything else happens. */
  notifyQueued(): void {
    if (this.transitions[0]) this.statusWebhooks.notify(this.transitions[0], 1);
  }

  /**
   * Dispatches once the gate grants a slot, retrying transient failures with backoff and jitter until
   * `deliver_by`: ends `dispatched`, `failed` (permanent failure), `expired`, or wherever an ACK moved it.
   */
  async dispatchUntilDone(): Promise<void> {
    let retryDelayMs = this.input.options?.retryInitialMs ?? DEFAULT_RETRY_INITIAL_MS;
    let hasGrant = this.isDeadlinePassed() ? false : await this.awaitGrant();
    while (this.current() === 'queued') {
      if (!hasGrant || this.isDeadlinePassed()) {
        this.advance('expired', 'deliver_by_passed');
        return;
      }
      const outcome = await this.attemptDispatch();
      if (outcome === 'done') return;
      if (outcome === 'deadline') continue;
      if (outcome === 'logged_out') {
        log.warn('account logged out; sending paused', { messageId: this.input.messageId });
        await pauseAccountSending({ accountId: this.input.accountId, reason: 'logged_out' });
        hasGrant = await this.awaitGrant();
        continue;
      }
      // Jitter in [delay/2, delay] (workflow Math.random is deterministic), never past the deadline.
      const jittered = retryDelayMs / 2 + (Math.random() * retryDelayMs) / 2;
      await sleep(Math.min(jittered, this.msToDeadline() ?? jittered));
      retryDelayMs = Math.min(retryDelayMs * 2, RETRY_MAX_MS);
    }
  }

  /** After the socket accepted the message: one alert if no ACK comes within the grace, then ACKs until the wait ends. */
  async followAcks(): Promise<void> {
    const current = this.current();
    if (current !== 'dispatched' && current !== 'sent' && current !== 'delivered') return;
    const ackWaitMs = this.input.options?.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const ackGraceMs = this.input.options?.ackGraceMs ?? DEFAULT_ACK_GRACE_MS;
    const ackDeadlineMs = Date.now() + ackWaitMs;
    const hasAck = await condition(() => this.current() !== 'dispatched', ackGraceMs);
    if (!hasAck) {
      log.error('no ack after the grace period; not re-sending', { messageId: this.input.messageId });
      await sendAlert({
        kind: 'send_ack_missing',
        severity: 'warning',
        message:
          'an outbound message was accepted by the socket but WhatsApp has not acknowledged it; it is not re-sent',
        details: { messageId: this.input.messageId, graceMs: ackGraceMs },
      });
    }
    while (this.current() !== 'read' && this.current() !== 'failed' && Date.now() < ackDeadlineMs) {
      await this.flush();
      await condition(
        () => this.unreported.length > 0 || this.current() === 'read' || this.current() === 'failed',
        ackDeadlineMs - Date.now()
      );
    }
  }

  /** Waits until every status webhook child has started. */
  settleStatusWebhooks(): Promise<void> {
    return this.statusWebhooks.settle();
  }

  result(): SendMessageResult {
    const { messageId } = this.input;
    return { messageId, state: this.state, reasonCode: this.reasonCode, dispatchAttempts: this.dispatchAttempts };
  }

  /**
   * One dispatch attempt: `done` when it ended the loop (dispatched, failed, or an ACK arrived meanwhile),
   * `deadline` when the deadline cancelled an attempt no collector had started, else what to do next.
   */
  private async attemptDispatch(): Promise<'done' | 'deadline' | 'logged_out' | 'transient'> {
    this.dispatchAttempts += 1;
    try {
      await dispatchBeforeDeadline(
        this.dispatchWhatsAppMessage,
        {
          messageId: this.input.messageId,
          waMessageId: this.input.waMessageId,
          toJid: this.input.toJid,
          text: this.input.text,
          category: this.input.category,
          grantedAtMs: this.grantedAtMs ?? Date.now(),
          deliverByMs: this.deliverByMs,
        },
        this.msToDeadline()
      );
      this.advance('dispatched');
      return 'done';
    } catch (err) {
      // The deadline cancelled an attempt no collector had started: the loop records `expired`.
      if (isCancellation(err) && this.isDeadlinePassed()) return 'deadline';
      const outcome = classifyAttempt(err);
      if (this.current() !== 'queued') return 'done'; // an ACK arrived meanwhile: the message is out; never send again
      if (outcome.kind === 'permanent') {
        this.advance('failed', SEND_REASON_CODES[outcome.type as SendFailureTypeName] ?? outcome.type);
        return 'done';
      }
      return outcome.kind === 'logged_out' ? 'logged_out' : 'transient';
    }
  }

  /** Asks the account's gate for a slot and waits for the grant, at most until `deliver_by`. */
  private async awaitGrant(): Promise<boolean> {
    this.grantedAtMs = null;
    await requestDispatchSlot({
      accountId: this.input.accountId,
      request: {
        target: sendGateWorkflowId(this.input.accountId),
        messageId: this.input.messageId,
        category: this.input.category,
        deliverByMs: this.deliverByMs,
        recipientJid: this.input.toJid,
      },
    });
    const timeout = this.msToDeadline();
    return timeout === undefined
      ? (await condition(() => this.grantedAtMs !== null), true)
      : condition(() => this.grantedAtMs !== null, timeout);
  }

  // Read through a method: signal handlers change `state` between awaits, which TypeScript's narrowing cannot see.
  private current(): SendState {
    return this.state;
  }

  private isDeadlinePassed(): boolean {
    return this.deliverByMs !== null && Date.now() >= this.deliverByMs;
  }

  private msToDeadline(): number | undefined {
    return this.deliverByMs === null ? undefined : Math.max(this.deliverByMs - Date.now(), 0);
  }
}
