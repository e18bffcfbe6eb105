/**
 * The one place the collector core takes helpers from Baileys 7.0.0-rc14 (JID predicates, the
 * `BufferJSON` tagged form, WAProto enums). House style §1 keeps the socket behind `session/`;
 * these pure helpers are imported here so that filter and keys use Baileys' own rules (architecture.md §3, §4).
 */
export { BufferJSON, isJidGroup, jidNormalizedUser, proto } from '@whiskeysockets/baileys';
