import { ApplicationFailure, Context, log } from '@temporalio/activity';
import {
  DISPATCH_HEARTBEAT_INTERVAL_MS,
  PRESENCE_TIMEOUT_MS,
  SEND_TIMEOUT_MS,
  type SessionActivities,
} from '../../workflows/send-contracts.js';
import type { LinkPreview, SendSocket } from '../session/send-socket.js';
import { isJidGroup } from '../../common/whatsapp-jid.js';
import type { LinkPreviewer } from './link-preview.js';
import { SendTimeoutError, SessionNotConnectedError, RecipientNotOnWhatsAppError, toSendError } from './send-errors.js';

/** Dependencies of {@link createDispatchActivity}; timeouts in ms. */
export interface DispatchActivityDeps {
  /** The live socket when the session is open, else null. */
  getSocket: () => SendSocket | null;
  /** Called before anything goes on the wire, so an ACK that comes back at once can be routed. */
  rememberSent: (waMessageId: string, messageId: string) => void;
  /** Link previews (`SEND_LINK_PREVIEW`); without it no message carries one. */
  linkPreviewer?: LinkPreviewer;
  presenceTimeoutMs?: number;
  sendTimeoutMs?: number;
  now?: () => number;
}

const noPreview = (): Promise<LinkPreview | null> => Promise.resolve(null);

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, step: SendTimeoutError['step']): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SendTimeoutError(step, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Builds the collector's `dispatchWhatsAppMessage` activity (architecture.md §12): refuses
 * when the deadline passed or the session is not open; checks a phone recipient is on WhatsApp;
 * "typing…" presence ≤ 5 s (cosmetic: a failure is logged, not fatal); `sendMessage` ≤ 20 s with
 * `messageId = waMessageId`, so a retry after an ambiguous timeout re-sends the same WhatsApp message.
 * The link preview (best effort, ADR 0015) is fetched while the look-up and presence run, within its own
 * few seconds, and a message without one is sent all the same.
 *
 * @throws ApplicationFailure whose `type` is the {@link SendError} class name (non-retryable for
 *   not-on-WhatsApp, blocked, invalid payload, logged out), or `SendDeadlinePassedError`.
 */
export function createDispatchActivity(deps: DispatchActivityDeps): SessionActivities {
  const presenceTimeoutMs = deps.presenceTimeoutMs ?? PRESENCE_TIMEOUT_MS;
  const sendTimeoutMs = deps.sendTimeoutMs ?? SEND_TIMEOUT_MS;
  const now = deps.now ?? Date.now;
  const previewLink = deps.linkPreviewer ?? noPreview;
  return {
    async dispatchWhatsAppMessage(input): Promise<void> {
      if (input.deliverByMs !== null && now() >= input.deliverByMs) {
        throw ApplicationFailure.create({
          type: 'SendDeadlinePassedError',
          message: 'deliver_by passed before dispatch',
          nonRetryable: true,
        });
      }
      // Heartbeats while the attempt runs: a collector killed mid-send is noticed after DISPATCH_HEARTBEAT_TIMEOUT_MS
      // and the workflow retries then (same WhatsApp id), not after the whole start-to-close timeout (ADR 0017).
      const context = Context.current();
      const heartbeats = setInterval(() => context.heartbeat(), DISPATCH_HEARTBEAT_INTERVAL_MS);
      try {
        const socket = deps.getSocket();
        if (!socket) throw new SessionNotConnectedError('the whatsapp session is not open');
        // Never rejects: a previewer failure is a message without a preview.
        const linkPreview = previewLink(input.text).catch(noPreview);
        if (!isJidGroup(input.toJid)) {
          const [found] = (await withTimeout(socket.onWhatsApp(input.toJid), presenceTimeoutMs, 'lookup')) ?? [];
          if (!found?.exists) throw new RecipientNotOnWhatsAppError('the recipient is not on WhatsApp');
        }
        try {
          await withTimeout(socket.sendPresenceUpdate('composing', input.toJid), presenceTimeoutMs, 'presence');
        } catch (err) {
          // "typing…" is cosmetic: its failure never blocks the send (which has its own timeout).
          log.warn('presence update failed; sending anyway', { messageId: input.messageId, err: String(err) });
        }
        const content = { text: input.text, linkPreview: await linkPreview };
        deps.rememberSent(input.waMessageId, input.messageId);
        await withTimeout(
          socket.sendMessage(input.toJid, content, { messageId: input.waMessageId }),
          sendTimeoutMs,
          'send'
        );
        log.info('message dispatched', {
          messageId: input.messageId,
          waMessageId: input.waMessageId,
          hasLinkPreview: content.linkPreview !== null,
        });
      } catch (err) {
        const sendError = toSendError(err);
        throw ApplicationFailure.create({
          type: sendError.failureType,
          message: sendError.message,
          nonRetryable: !sendError.isRetryable,
          cause: sendError,
        });
      } finally {
        clearInterval(heartbeats);
      }
    },
  };
}
