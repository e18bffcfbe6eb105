import { makeEventBuffer, type GroupMetadata } from '@whiskeysockets/baileys';
import pino from 'pino';
import type { LinkPreview, OpenedSocket, SessionSocket, SocketFactory } from '../../collector/index.js';
import { isJidGroup } from '../../common/whatsapp-jid.js';

/** One message the simulated WhatsApp accepted ("on the wire"); `atMs` is epoch ms. */
export interface WireSend {
  jid: string;
  text: string;
  messageId: string;
  atMs: number;
  /** The link preview the message carried (absent in wire logs written before previews existed). */
  linkPreview?: LinkPreview | null;
}

/** How the simulated server treats messages to one recipient (the demo's injected faults). */
export type RecipientBehaviour =
  /** Accepts and ACKs: server ack, then delivery, then read. */
  | 'acks'
  /** Accepts and never ACKs by itself (a lost ACK); {@link SimulatedWhatsApp.ack} sends one later. */
  | 'lost_ack'
  /** The first send is accepted but the call hangs `slowSendMs` (longer than the send timeout); later sends are normal. */
  | 'slow_first_send'
  /** `onWhatsApp` says the number is not registered. */
  | 'not_on_whatsapp';

/** Options of {@link SimulatedWhatsApp}; durations in ms. */
export interface SimulatedWhatsAppOptions {
  /** The linked account (`user.id` / `user.lid`, with device suffix as Baileys reports them). */
  self: { id: string; lid: string };
  /** Groups the account participates in (what `groupFetchAllParticipating` returns on every open). */
  groups: Record<string, GroupMetadata>;
  /** Behaviour per recipient JID; unlisted recipients get `acks`. */
  behaviours: ReadonlyMap<string, RecipientBehaviour>;
  slowSendMs: number;
  /** Gap between successive ACKs of one message. */
  ackStepMs: number;
  /** Called synchronously for each message accepted, before `sendMessage` answers (the chaos run's wire file). */
  onWireSend?: (send: WireSend) => void;
}

const STATUS_SERVER_ACK = 2;
const STATUS_DELIVERY_ACK = 3;
const STATUS_READ = 4;

function boomLike(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode, payload: {} } });
}

/**
 * WhatsApp on one machine, no network: a {@link SocketFactory} whose sockets speak the
 * part of Baileys 7 the collector uses (events through Baileys' own `makeEventBuffer`, rc14 shapes),
 * with a wire log shared across reconnects and scripted faults per recipient. ACKs arrive as Baileys
 * emits them: `messages.update` with `status` for direct chats and the server ack in groups,
 * `message-receipt.update` for group delivery/read receipts.
 */
export class SimulatedWhatsApp {
  /** Every message accepted, in order, across all sockets. */
  readonly wire: WireSend[] = [];
  private current: (SessionSocket & { ev: ReturnType<typeof makeEventBuffer> }) | null = null;
  private isOpen = false;
  private outageEnds: Promise<void> = Promise.resolve();
  private readonly slowSent = new Set<string>();
  /** ACKs due while the connection was down: WhatsApp hands them over on the next open. */
  private readonly pendingAcks: Array<{ messageId: string; status: 'sent' | 'delivered' | 'read' }> = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: SimulatedWhatsAppOptions) {}

  /** The factory to hand to the collector; during an outage a new connection waits until it ends. */
  readonly socketFactory: SocketFactory = async (): Promise<OpenedSocket> => {
    await this.outageEnds;
    const socket = this.createSocket();
    this.current = socket;
    // The session subscribes to `ev` right after the factory resolves; open on the next turn.
    this.later(10, () => {
      if (this.current !== socket) return;
      this.isOpen = true;
      socket.ev.emit('connection.update', { connection: 'open' });
      for (const pending of this.pendingAcks.splice(0)) this.ack(pending.messageId, pending.status);
    });
    return { socket, saveCreds: () => Promise.resolve() };
  };

  /** Whether a socket is open now. */
  get connected(): boolean {
    return this.isOpen;
  }

  /** Drops the connection (status 428, "connection closed") and refuses to reconnect for `outageMs`. */
  disconnect(outageMs: number): void {
    const socket = this.current;
    this.isOpen = false;
    this.outageEnds = new Promise((resolve) => this.later(outageMs, resolve));
    socket?.ev.emit('connection.update', {
      connection: 'close',
      lastDisconnect: { error: boomLike(428, 'Connection Closed'), date: new Date() },
    });
  }

  /**
   * Emits a status ACK for an accepted message on the open socket, or on the next open while down.
   * @returns false when no such message was accepted.
   */
  ack(messageId: string, status: 'sent' | 'delivered' | 'read'): boolean {
    const send = this.wire.find((entry) => entry.messageId === messageId);
    if (!send) return false;
    if (!this.isOpen || !this.current) {
      this.pendingAcks.push({ messageId, status });
      return true;
    }
    const key = { remoteJid: send.jid, id: messageId, fromMe: true };
    const isGroup = isJidGroup(send.jid);
    if (status === 'sent' || !isGroup) {
      const code = status === 'sent' ? STATUS_SERVER_ACK : status === 'delivered' ? STATUS_DELIVERY_ACK : STATUS_READ;
      this.current.ev.emit('messages.update', [{ key, update: { status: code } }]);
    } else {
      const nowS = Math.floor(Date.now() / 1000);
      const receipt =
        status === 'read'
          ? { userJid: '100000000000002@lid', readTimestamp: nowS }
          : { userJid: '100000000000002@lid', receiptTimestamp: nowS };
      this.current.ev.emit('message-receipt.update', [{ key, receipt }]);
    }
    return true;
  }

  /** Cancels pending ACK and open timers (the demo is over). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  private behaviourOf(jid: string): RecipientBehaviour {
    return this.options.behaviours.get(jid) ?? 'acks';
  }

  private createSocket(): SessionSocket & { ev: ReturnType<typeof makeEventBuffer> } {
    const ev = makeEventBuffer(pino({ level: 'silent' }));
    const socket: SessionSocket & { ev: ReturnType<typeof makeEventBuffer> } = {
      ev,
      user: this.options.self,
      groupFetchAllParticipating: () => Promise.resolve(this.options.groups),
      requestPairingCode: () => Promise.reject(new Error('the simulated WhatsApp is always linked')),
      end: (error) => {
        if (this.current === socket) this.isOpen = false;
        ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
      },
      sendPresenceUpdate: () => this.whenOpen(socket, undefined),
      onWhatsApp: (...jids) =>
        this.whenOpen(
          socket,
          jids.map((jid) => ({ jid, exists: this.behaviourOf(jid) !== 'not_on_whatsapp' }))
        ),
      sendMessage: (jid, content, options) => this.accept(socket, jid, content, options.messageId),
    };
    return socket;
  }

  private whenOpen<T>(socket: SessionSocket, value: T): Promise<T> {
    return this.isOpen && this.current === socket
      ? Promise.resolve(value)
      : Promise.reject(boomLike(428, 'Connection Closed'));
  }

  private async accept(
    socket: SessionSocket,
    jid: string,
    content: { text: string; linkPreview: LinkPreview | null },
    messageId: string
  ): Promise<unknown> {
    await this.whenOpen(socket, undefined);
    const send = { jid, text: content.text, messageId, atMs: Date.now(), linkPreview: content.linkPreview };
    this.wire.push(send);
    this.options.onWireSend?.(send);
    const behaviour = this.behaviourOf(jid);
    if (behaviour === 'slow_first_send' && !this.slowSent.has(messageId)) {
      // On the wire, but the call outlives the collector's send timeout: the ACK of this attempt is lost.
      this.slowSent.add(messageId);
      await new Promise<void>((resolve) => this.later(this.options.slowSendMs, resolve));
    } else if (behaviour !== 'lost_ack') {
      const step = this.options.ackStepMs;
      this.later(step, () => this.ack(messageId, 'sent'));
      this.later(2 * step, () => this.ack(messageId, 'delivered'));
      this.later(3 * step, () => this.ack(messageId, 'read'));
    }
    return { key: { id: messageId, fromMe: true, remoteJid: jid } };
  }
}
