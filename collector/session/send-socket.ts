import type { WAUrlInfo } from '@whiskeysockets/baileys';

/**
 * A link preview as Baileys 7 puts it into a text message (`extendedTextMessage` title, description,
 * matched text). Without a thumbnail: fetching the page's image is a second request to a host the API
 * client chose, for a picture the recipient's phone can fetch itself when the link is opened.
 */
export type LinkPreview = Pick<WAUrlInfo, 'canonical-url' | 'matched-text' | 'title' | 'description'>;

/**
 * What the collector hands to `sendMessage`. `linkPreview` is always present: `null` means no preview, and
 * stops Baileys from fetching one on its own (it would, unguarded, for any `https` link in the text).
 */
export interface SendContent {
  text: string;
  linkPreview: LinkPreview | null;
}

/**
 * The part of a Baileys 7 socket that sending uses (the real `WASocket` satisfies it; tests pass a
 * double). Source: Baileys 7.0.0-rc14 `lib/Socket/messages-send.d.ts`, `chats.d.ts`.
 */
export interface SendSocket {
  sendPresenceUpdate(
    type: 'composing' | 'paused' | 'available' | 'unavailable' | 'recording',
    toJid?: string
  ): Promise<void>;
  /** `options.messageId` fixes the WhatsApp id (architecture.md §12: derived from `message_id`). */
  sendMessage(jid: string, content: SendContent, options: { messageId: string }): Promise<unknown>;
  onWhatsApp(...jids: string[]): Promise<Array<{ jid: string; exists: boolean }> | undefined>;
}

/** Narrows a session socket to one that can send (the real Baileys socket always can). */
export function asSendSocket(socket: Partial<SendSocket> | null): SendSocket | null {
  if (!socket?.sendMessage || !socket.sendPresenceUpdate || !socket.onWhatsApp) return null;
  return socket as SendSocket;
}
