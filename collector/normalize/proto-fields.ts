import { proto } from './baileys-helpers.js';

/**
 * Field names declared `int64`/`uint64`/`fixed64`/`sint64` in Baileys rc14's `WAProto.proto`,
 * minus names that are a `string` elsewhere (`username`, `value`, `version`). A decimal string under
 * one of these names is a serialized protobuf Long (protobufjs `toJSON` writes longs as strings), so
 * it normalizes like a Long instance (architecture.md §4). Extracted with a grep of the .proto; refresh on a
 * Baileys upgrade.
 */
export const LONG_FIELD_NAMES: ReadonlySet<string> = new Set([
  'accountId',
  'amount1000',
  'assignedLid',
  'attachmentMediaKeyTimestamp',
  'campaignExpirationTimestamp',
  'campaignId',
  'chatDbLidMigrationTimestamp',
  'chatDbMigrationTimestamp',
  'clientTimestampMs',
  'code',
  'conversationTimestamp',
  'createdAt',
  'derivedContentStartTimeInMs',
  'disappearingModeTimestamp',
  'duration',
  'durationSecs',
  'endTime',
  'ephemeralSettingTimestamp',
  'ephemeralStartTimestamp',
  'eventEndTime',
  'eventStartTime',
  'expirationDate',
  'expirationTimestamp',
  'expires',
  'expiryTimestamp',
  'fbAppId',
  'featureControls',
  'fileLength',
  'fileSizeBytes',
  'intData',
  'inviteExpiration',
  'issueTime',
  'kindNegative',
  'kindPositive',
  'labelTimestamp',
  'lastFetchTime',
  'lastMessageTimestamp',
  'lastMsgTimestamp',
  'lastSentAt',
  'lastStickerSentTs',
  'lastSystemMessageTimestamp',
  'latestLid',
  'leaveTs',
  'limitSharingSettingTimestamp',
  'mediaKeyTimestamp',
  'mediaKeyTimestampMs',
  'messageC2STimestamp',
  'messageCount',
  'messageTimestamp',
  'motionPhotoPresentationOffsetMs',
  'msgOrderId',
  'musicSongStartTimeInMs',
  'muteEndTime',
  'muteEndTimeMs',
  'muteEndTimestamp',
  'newsletterServerId',
  'nextTriggerTimestamp',
  'notAfter',
  'notBefore',
  'oldestMessageTimestamp',
  'oldestMsgInChunkTimestampSec',
  'oldestMsgTimestampMs',
  'optionVoteCount',
  'overlapDurationInMs',
  'playedTimestamp',
  'pn',
  'priceAmount1000',
  'privacyModeTs',
  'readTimestamp',
  'receiptTimestamp',
  'recipientTimestamp',
  'reminderOffsetSec',
  'requestTimestamp',
  'responseTimestampMs',
  'revokeMessageTimestamp',
  'salePriceAmount1000',
  'scheduledTimestampMs',
  'senderNotificationTimestampMs',
  'senderTimestamp',
  'senderTimestampMs',
  'sequenceNumber',
  'serial',
  'serverTimestamp',
  'serverTimestampMs',
  'startTime',
  'stickerPackSize',
  'stickerSentTs',
  'tcTokenSenderTimestamp',
  'tcTokenTimestamp',
  'timestamp',
  'timestampMs',
  'totalAmount1000',
  'transactionTimestamp',
  'whatsappBizAcctFbid',
]);

/** Enum object as emitted by protobufjs static code: `NAME → number` (and `number → NAME`). */
type ProtoEnum = Readonly<Record<string, string | number>>;

/**
 * Enum-typed proto fields whose value may arrive as a name (protobufjs `toJSON`, the first
 * collector's trail) or as a number (live decode). Keyed `parentField.field`, or `*.field` when
 * the field name is unambiguous across WAProto. Names map to numbers (architecture.md §4); unknown names stay
 * strings, so a non-proto field that shares a name (`call` `status: 'offer'`) is untouched.
 */
export const ENUM_FIELDS: Readonly<Record<string, ProtoEnum>> = {
  '*.messageStubType': proto.WebMessageInfo.StubType,
  '*.status': proto.WebMessageInfo.Status,
  'protocolMessage.type': proto.Message.ProtocolMessage.Type,
  'extendedTextMessage.previewType': proto.Message.ExtendedTextMessage.PreviewType,
  'extendedTextMessage.font': proto.Message.ExtendedTextMessage.FontType,
  'extendedTextMessage.inviteLinkGroupType': proto.Message.ExtendedTextMessage.InviteLinkGroupType,
  'extendedTextMessage.inviteLinkGroupTypeV2': proto.Message.ExtendedTextMessage.InviteLinkGroupType,
  'groupInviteMessage.groupType': proto.Message.GroupInviteMessage.GroupType,
  'pinInChatMessage.type': proto.Message.PinInChatMessage.Type,
  'keepInChatMessage.keepType': proto.KeepType,
  'eventResponseMessage.response': proto.Message.EventResponseMessage.EventResponseType,
  'pollCreationMessage.pollContentType': proto.Message.PollContentType,
  'pollCreationMessageV2.pollContentType': proto.Message.PollContentType,
  'pollCreationMessageV3.pollContentType': proto.Message.PollContentType,
  'pollCreationMessage.pollType': proto.Message.PollType,
  'pollCreationMessageV2.pollType': proto.Message.PollType,
  'pollCreationMessageV3.pollType': proto.Message.PollType,
  'videoMessage.gifAttribution': proto.Message.VideoMessage.Attribution,
  'buttonsResponseMessage.type': proto.Message.ButtonsResponseMessage.Type,
  'listMessage.listType': proto.Message.ListMessage.ListType,
  'listResponseMessage.listType': proto.Message.ListResponseMessage.ListType,
  'placeholderMessage.type': proto.Message.PlaceholderMessage.PlaceholderType,
  'historySyncNotification.syncType': proto.Message.HistorySyncType,
  'reactionMessage.status': proto.WebMessageInfo.Status,
};

/** `field → (parentField | '*') → enum`, so the common case (not an enum field) is one Map miss. */
const ENUMS_BY_FIELD = new Map<string, Map<string, ProtoEnum>>();
for (const [path, table] of Object.entries(ENUM_FIELDS)) {
  const dot = path.indexOf('.');
  const field = path.slice(dot + 1);
  const byParent = ENUMS_BY_FIELD.get(field) ?? new Map<string, ProtoEnum>();
  byParent.set(path.slice(0, dot), table);
  ENUMS_BY_FIELD.set(field, byParent);
}

/**
 * Number of an enum name at `field` under `parentField`, or undefined when the field is not an
 * enum field or the name is not one of its values.
 */
export function enumNumber(parentField: string, field: string, name: string): number | undefined {
  const byParent = ENUMS_BY_FIELD.get(field);
  if (byParent === undefined) return undefined;
  const value = (byParent.get(parentField) ?? byParent.get('*'))?.[name];
  return typeof value === 'number' ? value : undefined;
}
