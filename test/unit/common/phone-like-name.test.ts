import { describe, expect, it } from 'vitest';
import { isPhoneLikeName } from '../../../common/phone-like-name.js';

describe('isPhoneLikeName', () => {
  it.each(['+55 11 91234-5678', '(11) 91234.5678', '5511912345678', '+55\u00a011\u202f91234-5678', ' 12345678 '])(
    'holds for %j',
    (name) => {
      expect(isPhoneLikeName(name)).toBe(true);
    }
  );
  it.each(['2024', '(1)', '1234567', 'Ana 91234-5678', '+55 11 91234-5678 ✓', '', '١٢٣٤٥٦٧٨٩'])(
    'fails for %j',
    (name) => {
      expect(isPhoneLikeName(name)).toBe(false);
    }
  );
});
