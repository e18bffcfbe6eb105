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
  sendMessage(jid: string, content: { text: string }, options: { messageId: string }): Promise<unknown>;
  onWhatsApp(...jids: string[]): Promise<Array<{ jid: string; exists: boolean }> | undefined>;
}

/** Narrows a session socket to one that can send (the real Baileys socket always can). */
export function asSendSocket(socket: Partial<SendSocket> | null): SendSocket | null {
  if (!socket?.sendMessage || !socket.sendPresenceUpdate || !socket.onWhatsApp) return null;
  return socket as SendSocket;
}
