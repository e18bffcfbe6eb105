import { describe, expect, it } from 'vitest';
import { proto } from '../../../../collector/normalize/baileys-helpers.js';
import { ITEM_ROOT_TYPES, parseProtoSchema, waProtoSchema } from '../../../../collector/normalize/proto-schema.js';

describe('parseProtoSchema', () => {
  it('resolves nested types by scope, oneof fields into their message, and enum values', () => {
    const schema = parseProtoSchema(`syntax = "proto3";
package proto;
message Outer {
    optional Inner inner = 1;
    optional Kind kind = 2;
    repeated uint64 times = 3;
    oneof choice {
        bytes blob = 4;
        Shared shared = 5;
    }
    message Inner {
        optional Kind kind = 1;
    }
    enum Kind {
        A = 0;
        B = 1;
    }
}
message Shared {
    string text = 1;
}
`);
    expect(schema.messages.get('proto.Outer')).toEqual(
      new Map([
        ['inner', { kind: 'message', typeName: 'proto.Outer.Inner' }],
        ['kind', { kind: 'enum', typeName: 'proto.Outer.Kind' }],
        ['times', { kind: 'long' }],
        ['blob', { kind: 'bytes' }],
        ['shared', { kind: 'message', typeName: 'proto.Shared' }],
      ])
    );
    expect(schema.messages.get('proto.Outer.Inner')?.get('kind')).toEqual({
      kind: 'enum',
      typeName: 'proto.Outer.Kind',
    });
    expect(schema.enums.get('proto.Outer.Kind')).toEqual(
      new Map([
        ['A', 0],
        ['B', 1],
      ])
    );
  });
});

describe('waProtoSchema', () => {
  it('matches the enums compiled into Baileys', () => {
    const stubTypes = waProtoSchema().enums.get('proto.WebMessageInfo.StubType');
    for (const [name, value] of Object.entries(proto.WebMessageInfo.StubType)) {
      if (typeof value === 'number') expect(stubTypes?.get(name), name).toBe(value);
    }
  });

  it('resolves every message-typed field and every item root type', () => {
    const schema = waProtoSchema();
    for (const fields of schema.messages.values()) {
      for (const field of fields.values()) {
        if (field.kind === 'message') expect(schema.messages.has(field.typeName ?? ''), field.typeName).toBe(true);
        if (field.kind === 'enum') expect(schema.enums.has(field.typeName ?? ''), field.typeName).toBe(true);
      }
    }
    for (const root of Object.values(ITEM_ROOT_TYPES)) expect(schema.messages.has(root), root).toBe(true);
    expect(schema.messages.get('proto.WebMessageInfo')?.get('messageTimestamp')).toEqual({ kind: 'long' });
  });
});
