import type { JsonObject, JsonValue } from '../../common/json-value.js';
import { UnserializableValueError } from './errors.js';
import { enumNumber, LONG_FIELD_NAMES } from './proto-fields.js';
import { ITEM_ROOT_TYPES, waProtoSchema, type ProtoField, type ProtoSchema } from './proto-schema.js';
import {
  bigIntToJson,
  decimalStringToJson,
  isLongLike,
  longToJson,
  serializedBytesToTagged,
  viewToTagged,
} from './scalars.js';

/** Deeper nesting than this is treated as unserializable (no Baileys item comes close). */
export const MAX_NORMALIZE_DEPTH = 200;

interface WalkContext {
  /**
   * Containers on the current path, root first: detects cycles (a shared, non-circular object is
   * fine) and its length is the nesting depth. An array beats a `Set` here: paths are a few levels deep.
   */
  onPath: object[];
  schema: ProtoSchema;
}

/**
 * Internal failure on its way up: each enclosing container adds its key, so the dotted path is built
 * only when an item fails instead of being pushed and popped for every field of every item.
 */
class WalkFailure extends Error {
  override readonly name = 'WalkFailure';
  readonly reversedPath: string[] = [];
  constructor(readonly reason: string) {
    super(reason);
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Normalizes one Baileys item into a JSON-safe value, the same value for the hash and the wire
 * (architecture.md §4). Rules:
 * - protobuf `Long` (instance or `{low, high, unsigned}`), `bigint`, and decimal strings under a
 *   proto 64-bit field → number when a safe integer, else the exact decimal string;
 * - `Buffer`, `Uint8Array`, any typed array, `{type:'Buffer', data}` and index-keyed byte objects →
 *   Baileys' `BufferJSON` form `{type:'Buffer', data:<base64>}`;
 * - proto enum names → their numbers;
 * - inside a proto message (`rootType`), fields are read by their WAProto type: enum names, 64-bit
 *   decimal strings and base64 strings of `bytes` fields (protobufjs `toJSON`, the first collector's
 *   trail) convert like their live forms; outside one, `LONG_FIELD_NAMES` and `ENUM_FIELDS` decide;
 * - `undefined`, functions and symbols dropped from objects (`null` inside arrays, like JSON);
 *   `Date` → ISO string; `Error` → `{name, message, code?}`; `Map` → object; `Set` → array.
 * Key order is preserved (the wire keeps Baileys' order; only the hash sorts).
 *
 * @throws UnserializableValueError for a cycle, a non-finite number, an invalid date, or nesting over
 *   `MAX_NORMALIZE_DEPTH`; the caller quarantines that one item.
 */
export function normalizeValue(value: unknown, rootType?: string): JsonValue {
  const root: ProtoField | undefined = rootType === undefined ? undefined : { kind: 'message', typeName: rootType };
  try {
    const result = walk(value, '', '', root, { onPath: [], schema: waProtoSchema() });
    return result === undefined ? null : result;
  } catch (err) {
    if (err instanceof WalkFailure)
      throw new UnserializableValueError(err.reversedPath.reverse().join('.'), err.reason);
    throw err;
  }
}

/**
 * Normalizes one kept item of a stored event type, with the proto type of its shape
 * (`ITEM_ROOT_TYPES`: `messages.upsert` items are `WebMessageInfo`, …). Use this, not
 * `normalizeValue`, wherever an event_id must match the pipeline's.
 * @throws UnserializableValueError as `normalizeValue`.
 */
export function normalizeItem(type: string, item: unknown): JsonValue {
  return normalizeValue(item, ITEM_ROOT_TYPES[type]);
}

function normalizeTypedString(value: string, field: ProtoField, ctx: WalkContext): JsonValue {
  switch (field.kind) {
    case 'enum':
      return ctx.schema.enums.get(field.typeName ?? '')?.get(value) ?? value;
    case 'long':
      return decimalStringToJson(value);
    case 'bytes':
      return BASE64.test(value) ? { type: 'Buffer', data: value } : value;
    default:
      return value;
  }
}

function fail(reason: string): never {
  throw new WalkFailure(reason);
}

/** Walks the field `key` of an object; on failure adds `key` to the failure's path (outermost last). */
function walkChild(
  value: unknown,
  parentKey: string,
  key: string,
  field: ProtoField | undefined,
  ctx: WalkContext
): JsonValue | undefined {
  try {
    return walk(value, parentKey, key, field, ctx);
  } catch (err) {
    if (err instanceof WalkFailure) err.reversedPath.push(key);
    throw err;
  }
}

function walk(
  value: unknown,
  parentKey: string,
  key: string,
  field: ProtoField | undefined,
  ctx: WalkContext
): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
      if (field !== undefined) return normalizeTypedString(value, field, ctx);
      if (LONG_FIELD_NAMES.has(key)) return decimalStringToJson(value);
      return enumNumber(parentKey, key, value) ?? value;
    case 'number':
      return Number.isFinite(value) ? value : fail(`non-finite number ${String(value)}`);
    case 'boolean':
      return value;
    case 'bigint':
      return bigIntToJson(value);
    case 'object':
      return value === null ? null : walkObject(value, parentKey, key, field, ctx);
    default:
      return undefined;
  }
}

function walkObject(
  value: object,
  parentKey: string,
  key: string,
  field: ProtoField | undefined,
  ctx: WalkContext
): JsonValue {
  const prototype: unknown = Object.getPrototypeOf(value);
  // Plain objects (most of an item) cannot be views, buffers, dates, arrays, sets, errors or maps.
  const isPlain = prototype === Object.prototype || prototype === null;
  if (!isPlain) {
    if (ArrayBuffer.isView(value)) return viewToJson(value);
    if (value instanceof ArrayBuffer) return viewToJson(new Uint8Array(value));
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail('invalid date') : value.toISOString();
  }
  const record = value as Record<string, unknown>;
  // Cheap property probes first: most objects are neither Longs nor serialized bytes. An array is
  // never index-keyed bytes (`serializedBytesToTagged` rejects it), so only its `type` is probed.
  if (typeof record.low === 'number' && isLongLike(value)) return longToJson(value);
  if (record.type === 'Buffer' || (record['0'] !== undefined && !Array.isArray(value))) {
    const tagged = serializedBytesToTagged(value);
    if (tagged) return { type: tagged.type, data: tagged.data };
  }
  const onPath = ctx.onPath;
  if (onPath.includes(value)) fail('circular reference');
  if (onPath.length >= MAX_NORMALIZE_DEPTH) fail(`nesting deeper than ${MAX_NORMALIZE_DEPTH}`);
  onPath.push(value);
  // No `finally`: a failure abandons the whole walk (and its context).
  const out = walkContainer(value, record, isPlain, parentKey, key, field, ctx);
  onPath.pop();
  return out;
}

function walkContainer(
  value: object,
  record: Record<string, unknown>,
  isPlain: boolean,
  parentKey: string,
  key: string,
  field: ProtoField | undefined,
  ctx: WalkContext
): JsonValue {
  if (!isPlain) {
    if (Array.isArray(value)) return walkArray(value, parentKey, key, field, ctx);
    if (value instanceof Set) return walkArray([...(value as Set<unknown>)], parentKey, key, field, ctx);
    if (value instanceof Error) return walkEntries(errorEntries(value), key, ctx);
    if (value instanceof Map)
      return walkEntries(
        [...value].map(([k, v]) => [String(k), v] as [string, unknown]),
        key,
        ctx
      );
  }
  const fields = field?.kind === 'message' ? ctx.schema.messages.get(field.typeName ?? '') : undefined;
  return walkRecord(record, key, fields, ctx);
}

/** `BufferJSON` tagged base64 of a typed-array view (a `Buffer` encodes itself without a copy). */
function viewToJson(view: ArrayBufferView): JsonObject {
  const data = Buffer.isBuffer(view) ? view.toString('base64') : viewToTagged(view).data;
  return { type: 'Buffer', data };
}

/** Own enumerable fields of an object (protobufjs instances included: their methods live on the prototype). */
function walkRecord(
  record: Record<string, unknown>,
  ownKey: string,
  fields: Map<string, ProtoField> | undefined,
  ctx: WalkContext
): JsonObject {
  const out: JsonObject = {};
  for (const childKey of Object.keys(record)) {
    const normalized = walkChild(record[childKey], ownKey, childKey, fields?.get(childKey), ctx);
    if (normalized !== undefined) out[childKey] = normalized;
  }
  return out;
}

function walkArray(
  items: unknown[],
  parentKey: string,
  key: string,
  field: ProtoField | undefined,
  ctx: WalkContext
): JsonValue[] {
  const out: JsonValue[] = new Array<JsonValue>(items.length);
  for (let i = 0; i < items.length; i++) {
    // Elements of a repeated field keep the field's key, so repeated enums and longs convert too.
    out[i] = walkIndex(items, i, parentKey, key, field, ctx) ?? null;
  }
  return out;
}

/** One array element; its index joins the path only on failure (no string per element otherwise). */
function walkIndex(
  items: unknown[],
  index: number,
  parentKey: string,
  key: string,
  field: ProtoField | undefined,
  ctx: WalkContext
): JsonValue | undefined {
  try {
    return walk(items[index], parentKey, key, field, ctx);
  } catch (err) {
    if (err instanceof WalkFailure) err.reversedPath.push(String(index));
    throw err;
  }
}

function walkEntries(entries: Array<[string, unknown]>, ownKey: string, ctx: WalkContext): JsonObject {
  const out: JsonObject = {};
  for (const [childKey, childValue] of entries) {
    const normalized = walkChild(childValue, ownKey, childKey, undefined, ctx);
    if (normalized !== undefined) out[childKey] = normalized;
  }
  return out;
}

/** Errors keep name, message and an optional code; the stack is noise and changes per process. */
function errorEntries(error: Error): Array<[string, unknown]> {
  const entries: Array<[string, unknown]> = [
    ['name', error.name],
    ['message', error.message],
  ];
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') entries.push(['code', code]);
  return entries;
}
