/**
 * The one place the collector core takes helpers from Baileys 7.0.0-rc14 (the
 * `BufferJSON` tagged form, WAProto enums). House style §1 keeps the socket behind `session/`;
 * these pure helpers are imported here. JID rules come from common/whatsapp-jid.ts, which restates Baileys' own.
 */
export { BufferJSON, proto } from '@whiskeysockets/baileys';
