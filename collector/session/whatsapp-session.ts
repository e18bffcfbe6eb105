import type { BaileysEventMap, ConnectionState } from '@whiskeysockets/baileys';
import type { Logger } from '../../common/logger.js';
import { jidNormalizedUser } from '../../common/whatsapp-jid.js';
import type { Alert, AlertSink } from '../../common/alert-sink.js';
import type { OpenedSocket, SessionSocket, SocketFactory } from './baileys-socket.js';
import { decideOnDisconnect, describeDisconnectError, socketErrorCodeOf } from './disconnect-policy.js';
import { LinkPrompter, writeToStdout, type TerminalWriter } from './login-prompt.js';
import { ReconnectBackoff, WindowedCounter } from './reconnect-backoff.js';
import { ReplacedSessionBackoff } from './replaced-session-backoff.js';
import { reconnectAlerts } from './session-alerts.js';

/** Disconnects inside the reconnect window, with opens in between, that count as flapping. */
const FLAPPING_DISCONNECTS = 6;

/** Lifecycle of the WhatsApp session, as shown by the heartbeat and `wa-lake status`. */
export type SessionState =
  'idle' | 'connecting' | 'waiting_for_link' | 'open' | 'reconnecting' | 'logged_out' | 'forbidden' | 'stopped';

/** Why the session ended for good. */
export type SessionStopReason = 'logged_out' | 'forbidden' | 'stopped';

/** Receives every Baileys event except `creds.update`, synchronously (architecture.md §1). May throw; the session logs it. */
export type SessionEventSink = (event: string, data: unknown, capturedAt: Date) => void;

/** Options of {@link WhatsAppSession}; durations in ms. */
export interface WhatsAppSessionOptions {
  socketFactory: SocketFactory;
  onEvent: SessionEventSink;
  logger: Logger;
  alertSink: AlertSink;
  /** Only used in the re-link instruction after a 401. */
  authDir: string;
  /** Digits of the phone to link with a pairing code instead of a QR code. */
  pairPhone?: string;
  reconnect: { baseDelayMs: number; maxDelayMs: number; windowMs: number };
  downAlertMs: number;
  replacedAlertCount: number;
  write?: TerminalWriter;
  now?: () => number;
  random?: () => number;
  onStateChange?: (state: SessionState) => void;
  /** After each `open`'s group snapshots: the group JIDs, or null when the fetch failed (coverage, ADR 0016). */
  onGroupsCaptured?: (groupJids: string[] | null) => void;
}

/**
 * The live Baileys session (architecture.md §3, §10): one socket at a time; every event but `creds.update`
 * (which only saves the credentials) goes synchronously to `onEvent`; on every `open`, one
 * synthetic `groups.metadata` event per participating group. Reconnects after a close with a
 * windowed backoff that a brief `open` does not reset; 401 and 403 stop for good (`stopped`
 * resolves); repeated 440 raises a `session_replaced` alert; a session not open again within
 * `downAlertMs` raises `session_down`. Timers and listeners are released on every path.
 */
export class WhatsAppSession {
  state: SessionState = 'idle';
  stateSince = new Date();
  /** Resolves when the session ends for good: logged out, forbidden, or `stop()`. */
  readonly stopped: Promise<SessionStopReason>;
  private resolveStopped: (reason: SessionStopReason) => void = () => undefined;
  private socket: SessionSocket | null = null;
  private unsubscribe: (() => void) | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private downTimer: NodeJS.Timeout | null = null;
  private isStopping = false;
  private lastOpenAtMs: number | null = null;
  private lastSelfJid: string | null = null;
  private lastSelfLid: string | null = null;
  /** Credential saves run one after another; a reconnect waits for them (515 right after pairing). */
  private pendingCredsSave: Promise<void> = Promise.resolve();
  private readonly logger: Logger;
  private readonly backoff: ReconnectBackoff;
  private readonly replacedCounter: WindowedCounter;
  private readonly replacedBackoff: ReplacedSessionBackoff;
  private readonly linkPrompter: LinkPrompter;

  constructor(private readonly options: WhatsAppSessionOptions) {
    this.logger = options.logger.child({ component: 'session' });
    this.backoff = new ReconnectBackoff({
      ...options.reconnect,
      ...(options.now ? { now: options.now } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
    this.replacedCounter = new WindowedCounter(options.reconnect.windowMs, options.now);
    this.replacedBackoff = new ReplacedSessionBackoff({
      maxDelayMs: options.reconnect.maxDelayMs,
      ...(options.now ? { now: options.now } : {}),
    });
    this.linkPrompter = new LinkPrompter({
      pairPhone: options.pairPhone,
      write: options.write ?? writeToStdout,
      logger: this.logger,
    });
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
  }

  /** Opens the first connection (returns at once; progress shows in `state`). */
  start(): void {
    if (this.state === 'idle') void this.connect();
  }

  /** Closes the socket, clears every timer and listener; `stopped` resolves with `stopped`. */
  async stop(): Promise<void> {
    if (this.isStopping) return;
    this.isStopping = true;
    this.clearTimers();
    const socket = this.socket;
    this.detach();
    if (socket) await Promise.resolve(socket.end(undefined)).catch(() => undefined);
    await this.pendingCredsSave;
    this.finish('stopped');
  }

  /** The linked account's own JID (device suffix removed), remembered across reconnects; null before the first login. */
  getSelfJid(): string | null {
    const id = this.socket?.user?.id;
    if (id) this.lastSelfJid = jidNormalizedUser(id);
    return this.lastSelfJid;
  }

  /** The linked account's LID (device suffix removed; Baileys' `user.lid`), remembered across reconnects; null when unknown. */
  getSelfLid(): string | null {
    const lid = this.socket?.user?.lid;
    if (lid) this.lastSelfLid = jidNormalizedUser(lid);
    return this.lastSelfLid;
  }

  /** The socket while the session is `open` (outbound send, architecture.md §12: sending waits while it is not), else null. */
  getOpenSocket(): SessionSocket | null {
    return this.state === 'open' ? this.socket : null;
  }

  private setState(state: SessionState): void {
    if (this.state === state) return;
    this.state = state;
    this.stateSince = new Date();
    this.options.onStateChange?.(state);
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    this.setState(this.state === 'idle' ? 'connecting' : 'reconnecting');
    let opened: OpenedSocket;
    try {
      await this.pendingCredsSave;
      opened = await this.options.socketFactory();
    } catch (err) {
      this.logger.error({ err }, 'cannot create whatsapp socket; retrying');
      this.scheduleReconnect(this.backoff.recordDisconnect());
      return;
    }
    if (this.isStopping) {
      await Promise.resolve(opened.socket.end(undefined)).catch(() => undefined);
      return;
    }
    this.socket = opened.socket;
    this.unsubscribe = opened.socket.ev.process((events) => this.handleEvents(opened, events));
  }

  private handleEvents(opened: OpenedSocket, events: Partial<BaileysEventMap>): void {
    if (opened.socket !== this.socket) return;
    const capturedAt = new Date();
    for (const [event, data] of Object.entries(events) as [string, unknown][]) {
      if (event === 'creds.update') {
        this.pendingCredsSave = this.pendingCredsSave
          .then(() => opened.saveCreds())
          .catch((err: unknown) => this.logger.error({ err }, 'cannot save whatsapp credentials'));
        continue;
      }
      if (event !== 'connection.update') {
        this.deliver(event, data, capturedAt);
        continue;
      }
      const update = data as Partial<ConnectionState>;
      // The QR is a live linking secret: it is never recorded. The close error becomes JSON-safe.
      const lastDisconnect = update.lastDisconnect
        ? { date: update.lastDisconnect.date, error: describeDisconnectError(update.lastDisconnect.error) }
        : undefined;
      this.deliver(event, { ...update, qr: update.qr ? '[omitted]' : undefined, lastDisconnect }, capturedAt);
      this.onConnectionUpdate(opened.socket, update);
    }
  }

  private deliver(event: string, data: unknown, capturedAt: Date): void {
    try {
      this.options.onEvent(event, data, capturedAt);
    } catch (err) {
      this.logger.error({ err, event }, 'cannot store whatsapp event; closing the connection to stop receiving');
      this.alert({
        kind: 'collector_store_failed',
        severity: 'error',
        message:
          'The collector could not write a WhatsApp event to its outbox (disk full?); it disconnects and retries.',
      });
      // Receiving more events we cannot store would lose them; the close path reconnects with backoff.
      const socket = this.socket;
      if (socket)
        void Promise.resolve(socket.end(err instanceof Error ? err : new Error(String(err)))).catch(() => undefined);
    }
  }

  private onConnectionUpdate(socket: SessionSocket, update: Partial<ConnectionState>): void {
    if (update.qr) this.showLogin(socket, update.qr);
    if (update.connection === 'open') {
      this.setState('open');
      this.lastOpenAtMs = (this.options.now ?? Date.now)();
      if (this.downTimer) clearTimeout(this.downTimer);
      this.downTimer = null;
      this.logger.info({}, 'whatsapp connection open');
      void this.captureGroupSnapshots(socket);
    } else if (update.connection === 'close') {
      this.onClose(update.lastDisconnect?.error);
    }
  }

  private showLogin(socket: SessionSocket, qr: string): void {
    this.setState('waiting_for_link');
    this.linkPrompter.show(socket, qr);
  }

  private async captureGroupSnapshots(socket: SessionSocket): Promise<void> {
    try {
      const groups = Object.values(await socket.groupFetchAllParticipating());
      const capturedAt = new Date();
      for (const metadata of groups) this.deliver('groups.metadata', metadata, capturedAt);
      this.logger.info({ groups: groups.length }, 'group snapshots captured');
      if (socket === this.socket) this.options.onGroupsCaptured?.(groups.map((metadata) => metadata.id));
    } catch (err) {
      this.logger.warn({ err }, 'cannot fetch group metadata; next open retries');
      if (socket === this.socket) this.options.onGroupsCaptured?.(null);
    }
  }

  private onClose(error: unknown): void {
    this.detach();
    if (this.isStopping) return;
    const decision = decideOnDisconnect(error);
    if (decision.action === 'stop') {
      const alert = reconnectAlerts.stopped(decision.reason, this.options.authDir);
      this.logger.error(
        { statusCode: decision.statusCode, reason: decision.reason, instruction: alert.message },
        'whatsapp session stopped'
      );
      this.alert(alert);
      this.clearTimers();
      this.finish(decision.reason);
      return;
    }
    let delayMs = this.backoff.recordDisconnect(decision.reason === 'restart_required');
    if (decision.reason === 'replaced') {
      // Two collectors on one session must not take it from each other every few seconds.
      delayMs = this.replacedBackoff.recordReplaced(delayMs);
      const isRepeated = this.replacedCounter.record() >= this.options.replacedAlertCount;
      if (isRepeated || this.replacedBackoff.isFighting) this.alert(reconnectAlerts.replaced());
    }
    const fields = {
      statusCode: decision.statusCode,
      reason: decision.reason,
      delayMs,
      errorCode: socketErrorCodeOf(error),
    };
    if (decision.reason === 'network') this.logger.warn(fields, 'cannot reach whatsapp (no network?); retrying');
    else this.logger.warn(fields, 'whatsapp connection closed; reconnecting');
    // Flapping = it keeps opening and dropping; never reaching WhatsApp is `session_down`, not this.
    const nowMs = (this.options.now ?? Date.now)();
    const hasOpenedRecently = this.lastOpenAtMs !== null && nowMs - this.lastOpenAtMs < this.options.reconnect.windowMs;
    if (hasOpenedRecently && this.backoff.countInWindow() >= FLAPPING_DISCONNECTS) {
      this.alert(reconnectAlerts.unstable(this.backoff.countInWindow()));
    }
    this.armDownTimer();
    this.setState('reconnecting');
    this.scheduleReconnect(delayMs);
  }

  private armDownTimer(): void {
    if (this.downTimer) return;
    this.downTimer = setTimeout(() => {
      this.downTimer = null;
      if (this.state !== 'open' && !this.isStopping) this.alert(reconnectAlerts.down(this.options.downAlertMs));
    }, this.options.downAlertMs);
    this.downTimer.unref();
  }

  private scheduleReconnect(delayMs: number): void {
    if (this.isStopping) return;
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
  }

  private detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.socket = null;
  }

  private clearTimers(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.downTimer) clearTimeout(this.downTimer);
    this.reconnectTimer = null;
    this.downTimer = null;
  }

  private finish(reason: SessionStopReason): void {
    this.setState(reason);
    this.resolveStopped(reason);
  }

  private alert(alert: Alert): void {
    this.options.alertSink.send(alert).catch((err: unknown) => this.logger.error({ err }, 'cannot send alert'));
  }
}
