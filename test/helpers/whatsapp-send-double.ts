import type { SendContent, SendSocket } from '../../collector/session/send-socket.js';

/** One message that reached "the wire" (the double accepted it). */
export interface WireSend {
  jid: string;
  text: string;
  messageId: string;
  linkPreview: SendContent['linkPreview'];
}

/**
 * A WhatsApp socket double for outbound send (no network): records every accepted message, never
 * ACKs by itself, and can be scripted per `sendMessage` call: throw before accepting, or accept and
 * then hang for a while (an in-flight timeout: the message is on the wire but the call does not return).
 */
export class WhatsAppSendDouble implements SendSocket {
  readonly wire: WireSend[] = [];
  readonly notOnWhatsApp = new Set<string>();
  /** Per call, in order: an error to throw instead of accepting. */
  readonly failures: Error[] = [];
  /** Per call, in order: ms to hang after accepting. */
  readonly hangsMs: number[] = [];
  /** Called after each accepted message (e.g. to send an ACK signal from the test). */
  onAccepted: ((send: WireSend) => Promise<void> | void) | null = null;

  async sendPresenceUpdate(): Promise<void> {}

  onWhatsApp(...jids: string[]): Promise<Array<{ jid: string; exists: boolean }>> {
    return Promise.resolve(jids.map((jid) => ({ jid, exists: !this.notOnWhatsApp.has(jid) })));
  }

  async sendMessage(jid: string, content: SendContent, options: { messageId: string }): Promise<unknown> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    const send = { jid, text: content.text, messageId: options.messageId, linkPreview: content.linkPreview };
    this.wire.push(send);
    await this.onAccepted?.(send);
    const hangMs = this.hangsMs.shift() ?? 0;
    if (hangMs > 0) await new Promise((resolve) => setTimeout(resolve, hangMs));
    return { key: { id: options.messageId, fromMe: true, remoteJid: jid } };
  }

  /** Distinct WhatsApp ids on the wire. */
  distinctIds(): number {
    return new Set(this.wire.map((send) => send.messageId)).size;
  }
}

/** A Baileys-like Boom error carrying only `output.statusCode` (how the session layer sees them). */
export function boomLike(statusCode: number, message = 'boom'): Error {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode } });
}
