import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** How normalization treats one proto field (architecture.md §4). */
export type ProtoFieldKind = 'message' | 'enum' | 'bytes' | 'long' | 'scalar';

/** One field of a message: its kind and, for messages and enums, the fully-qualified type name. */
export interface ProtoField {
  kind: ProtoFieldKind;
  typeName?: string;
}

/** The parts of `WAProto.proto` normalization needs: fields per message, values per enum. */
export interface ProtoSchema {
  messages: Map<string, Map<string, ProtoField>>;
  enums: Map<string, Map<string, number>>;
}

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const SCALAR_TYPES = new Set(['double', 'float', 'int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'bool', 'string']);
const BLOCK = /^\s*(message|enum|oneof)\s+(\w+)\s*\{/;
const FIELD = /^\s*(?:optional|repeated|required)?\s*([A-Za-z_][\w.]*)\s+(\w+)\s*=\s*\d+/;
const ENUM_VALUE = /^\s*(\w+)\s*=\s*(-?\d+)\s*[;[]/;

interface Scope {
  kind: 'message' | 'enum' | 'oneof';
  name: string;
}

/**
 * Parses the subset of proto3 that Baileys' generated `WAProto.proto` uses: nested `message` and
 * `enum` blocks, `oneof` groups (their fields belong to the enclosing message), labelled or bare
 * fields. `map<…>` fields are skipped (normalized without schema).
 */
export function parseProtoSchema(source: string, packageName = 'proto'): ProtoSchema {
  const schema: ProtoSchema = { messages: new Map(), enums: new Map() };
  const rawFields: Array<{ scope: string; name: string; type: string }> = [];
  const stack: Scope[] = [];
  const qualified = () => [packageName, ...stack.filter((s) => s.kind !== 'oneof').map((s) => s.name)].join('.');
  for (const line of source.split('\n')) {
    const block = BLOCK.exec(line);
    if (block) {
      stack.push({ kind: block[1] as Scope['kind'], name: block[2] ?? '' });
      if (block[1] === 'message') schema.messages.set(qualified(), new Map());
      if (block[1] === 'enum') schema.enums.set(qualified(), new Map());
      continue;
    }
    if (/^\s*\}/.test(line)) {
      stack.pop();
      continue;
    }
    const top = stack.at(-1);
    if (top?.kind === 'enum') {
      const value = ENUM_VALUE.exec(line);
      if (value) schema.enums.get(qualified())?.set(value[1] ?? '', Number(value[2]));
      continue;
    }
    const field = FIELD.exec(line);
    if (field && top) rawFields.push({ scope: qualified(), name: field[2] ?? '', type: field[1] ?? '' });
  }
  for (const { scope, name, type } of rawFields)
    schema.messages.get(scope)?.set(name, resolveField(schema, scope, type));
  return schema;
}

/** Resolves a field type by protobuf scoping: innermost enclosing scope first, then outwards. */
function resolveField(schema: ProtoSchema, scope: string, type: string): ProtoField {
  if (type === 'bytes') return { kind: 'bytes' };
  if (LONG_TYPES.has(type)) return { kind: 'long' };
  if (SCALAR_TYPES.has(type)) return { kind: 'scalar' };
  const parts = scope.split('.');
  for (let depth = parts.length; depth >= 1; depth--) {
    const candidate = `${parts.slice(0, depth).join('.')}.${type}`;
    if (schema.messages.has(candidate)) return { kind: 'message', typeName: candidate };
    if (schema.enums.has(candidate)) return { kind: 'enum', typeName: candidate };
  }
  return { kind: 'scalar' };
}

/** Virtual message types for the item shapes Baileys builds around proto messages (architecture.md §3 table). */
function addItemTypes(schema: ProtoSchema): void {
  const message = (typeName: string): ProtoField => ({ kind: 'message', typeName });
  schema.messages.set(
    'wa-lake.MessagesUpdateItem',
    new Map([
      ['key', message('proto.MessageKey')],
      ['update', message('proto.WebMessageInfo')],
    ])
  );
  schema.messages.set(
    'wa-lake.MessagesReactionItem',
    new Map([
      ['key', message('proto.MessageKey')],
      ['reaction', message('proto.Reaction')],
    ])
  );
  schema.messages.set('wa-lake.MessagesDeleteItem', new Map([['keys', message('proto.MessageKey')]]));
}

/** Root type of one item per stored event type; other types (group events, calls…) have none. */
export const ITEM_ROOT_TYPES: Readonly<Record<string, string>> = {
  'messages.upsert': 'proto.WebMessageInfo',
  'messages.update': 'wa-lake.MessagesUpdateItem',
  'messages.reaction': 'wa-lake.MessagesReactionItem',
  'messages.delete': 'wa-lake.MessagesDeleteItem',
};

let loaded: ProtoSchema | undefined;

/**
 * The schema of the installed Baileys (`@whiskeysockets/baileys/WAProto/WAProto.proto`), parsed once
 * on first use (a few ms), so enum names, 64-bit integers and base64 bytes are recognized by field
 * type and not by guessing (architecture.md §4).
 */
export function waProtoSchema(): ProtoSchema {
  if (!loaded) {
    const path = createRequire(import.meta.url).resolve('@whiskeysockets/baileys/WAProto/WAProto.proto');
    loaded = parseProtoSchema(readFileSync(path, 'utf8'));
    addItemTypes(loaded);
  }
  return loaded;
}
