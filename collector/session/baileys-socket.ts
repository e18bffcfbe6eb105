import { mkdirSync } from 'node:fs';
import {
  Browsers,
  fetchLatestBaileysVersion,
  makeWASocket,
  useMultiFileAuthState,
  type BaileysEventMap,
  type GroupMetadata,
  type WAVersion,
} from '@whiskeysockets/baileys';
import type { Logger } from '../../common/logger.js';
import type { HistoryFetchSocket } from '../backfill/history-backfill.js';
import type { SendSocket } from './send-socket.js';

/**
 * The part of a Baileys 7 `WASocket` the session uses. The real socket satisfies it; tests pass a
 * double whose `ev` is Baileys' own `makeEventBuffer` emitting real rc14 shapes.
 */
export interface SessionSocket {
  ev: { process(handler: (events: Partial<BaileysEventMap>) => void | Promise<void>): () => void };
  readonly user?: { id: string; lid?: string | undefined } | undefined;
  groupFetchAllParticipating(): Promise<Record<string, GroupMetadata>>;
  requestPairingCode(phoneNumber: string): Promise<string>;
  end(error: Error | undefined): unknown;
  // Outbound send (architecture.md §12): present on the real socket; optional so capture-only doubles need not fake them.
  sendPresenceUpdate?: SendSocket['sendPresenceUpdate'];
  sendMessage?: SendSocket['sendMessage'];
  onWhatsApp?: SendSocket['onWhatsApp'];
  /** On-demand history (ADR 0016): rc14 `fetchMessageHistory(count, oldestMsgKey, oldestMsgTimestamp)`. */
  fetchMessageHistory?: HistoryFetchSocket['fetchMessageHistory'];
}

/** A connected socket plus how to persist its credentials on `creds.update`. */
export interface OpenedSocket {
  socket: SessionSocket;
  saveCreds: () => Promise<void>;
}

/** Creates one socket per connection attempt (the session calls it again on every reconnect). */
export type SocketFactory = () => Promise<OpenedSocket>;

/**
 * The production {@link SocketFactory}: loads `useMultiFileAuthState(authDir)` and calls
 * `makeWASocket` with the latest WhatsApp Web version (fetched once, with a 5 s timeout; Baileys'
 * bundled version when offline). Baileys logs through `logger` at `baileysLogLevel` (default
 * `silent`: its records can carry DM JIDs, architecture.md §3). Source: architecture.md §10, Baileys 7.0.0-rc14.
 *
 * @param options.authDir - auth-state directory (created by Baileys when missing); treat it like a private key.
 */
export function createBaileysSocketFactory(options: {
  authDir: string;
  logger: Logger;
  baileysLogLevel: string;
}): SocketFactory {
  const baileysLogger = options.logger.child({ component: 'baileys' }, { level: options.baileysLogLevel });
  let version: WAVersion | undefined;
  return async () => {
    // The session keys' folder is owner-only even outside the CLI's umask; Baileys would make it 0755 (ADR 0014).
    mkdirSync(options.authDir, { recursive: true, mode: 0o700 });
    const { state, saveCreds } = await useMultiFileAuthState(options.authDir);
    if (version === undefined) {
      const latest = await fetchLatestBaileysVersion({ signal: AbortSignal.timeout(5000) });
      version = latest.version;
    }
    const socket = makeWASocket({
      version,
      auth: state,
      logger: baileysLogger,
      browser: Browsers.ubuntu('wa-lake'),
      // Staying "offline" keeps notifications on the phone; the collector only listens.
      markOnlineOnConnect: false,
    });
    return { socket, saveCreds };
  };
}
