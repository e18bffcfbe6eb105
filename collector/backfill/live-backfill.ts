import type { Logger } from '../../common/logger.js';
import type { CollectorConfig } from '../config.js';
import { BackfillStore } from './backfill-store.js';
import { HistoryBackfill, type HistoryFetchSocket } from './history-backfill.js';

/** Event type telling the lake that a backfill finished, with the span it filled (ADR 0016). */
export const BACKFILL_EVENT_TYPE = 'collector.backfill';

/** What a live collector does with its history backfill. */
export interface LiveBackfill {
  /** After the pipeline stored an event: an ON_DEMAND push answers, a group message anchors a waiting backfill. */
  onStored(event: string, data: unknown): void;
  /** The session reopened after a gap that began at `sinceMs`: backfill every group over it. */
  requestAfterGap(groupJids: readonly string[], sinceMs: number): void;
  stop(): void;
}

/**
 * Starts the paced {@link HistoryBackfill} of a live collector on its own connection to the outbox file; each
 * finished backfill is sent through the lake as a `collector.backfill` event (`from_ms`…`to_ms` filled, the
 * `whatsapp_backfilled_periods` view). Source:, ADR 0016.
 * @throws OutboxOpenError when the outbox file cannot be opened.
 */
export function startLiveBackfill(deps: {
  config: CollectorConfig;
  pipeline: { handle(eventName: string, data: unknown, capturedAt: Date): unknown };
  logger: Logger;
  getSocket: () => HistoryFetchSocket | null;
  getSelfJid: () => string | null;
}): LiveBackfill {
  const { config, logger } = deps;
  const store = BackfillStore.open({ path: config.OUTBOX_PATH });
  const runner = new HistoryBackfill({
    store,
    getSocket: deps.getSocket,
    logger,
    pageSize: config.BACKFILL_PAGE_SIZE,
    requestIntervalMs: config.BACKFILL_REQUEST_INTERVAL_MS,
    answerTimeoutMs: config.BACKFILL_ANSWER_TIMEOUT_MS,
    maxAttempts: config.BACKFILL_MAX_ATTEMPTS,
    onFinished: (done) => {
      const fromMs = done.state === 'covered' ? done.sinceMs : (done.cursor?.tsMs ?? null);
      const payload = {
        group_jid: done.groupJid,
        account_jid: deps.getSelfJid(),
        state: done.state,
        from_ms: fromMs,
        to_ms: done.anchorTsMs,
        pages: done.pages,
        messages: done.messages,
      };
      deps.pipeline.handle(BACKFILL_EVENT_TYPE, payload, new Date());
    },
  });
  runner.refresh();
  runner.start();
  return {
    onStored: (event, data) => {
      try {
        if (event === 'messaging-history.set') runner.onHistory(data);
        else if (event === 'messages.upsert') {
          const messages = (data as { messages?: unknown } | null)?.messages;
          for (const message of Array.isArray(messages) ? messages : []) {
            const jid = (message as { key?: { remoteJid?: unknown } } | null)?.key?.remoteJid;
            if (typeof jid === 'string') runner.noteMessage(jid, message);
          }
        }
      } catch (err) {
        // Backfill bookkeeping must never cost an event: the event is already in the outbox.
        logger.error({ err, event }, 'cannot update history backfill');
      }
    },
    requestAfterGap: (groupJids, sinceMs) => {
      for (const group of groupJids) store.request(group, sinceMs, null);
      runner.refresh();
      logger.info({ groups: groupJids.length, sinceMs }, 'history backfill requested after a gap');
    },
    stop: () => {
      runner.stop();
      store.close();
    },
  };
}
