import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, envInt, parseConfig } from '../../../common/config-schema.js';

describe('envInt', () => {
  const schema = z.object({ LIMIT: envInt(5, 0, 100) });

  it('reads plain decimal digits within bounds, and the default when unset', () => {
    expect(parseConfig(schema, { LIMIT: '42' }).LIMIT).toBe(42);
    expect(parseConfig(schema, {}).LIMIT).toBe(5);
  });

  it.each([['-0'], ['0x10'], [' 5'], ['5.0'], ['1e1'], ['+5'], ['101'], ['']])(
    'refuses %j naming the setting',
    (value) => {
      expect(() => parseConfig(schema, { LIMIT: value })).toThrow(ConfigError);
      expect(() => parseConfig(schema, { LIMIT: value })).toThrow(/LIMIT: /);
    }
  );
});
