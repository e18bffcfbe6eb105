import { describe, expect, it } from 'vitest';
import { isUuidText } from '../../../common/uuid-text.js';

describe('isUuidText', () => {
  it('accepts the 8-4-4-4-12 hex form in either case, whatever the version', () => {
    expect(isUuidText('7c301bfa-8af7-53a4-9bc3-8e9bcf75641d')).toBe(true);
    expect(isUuidText('7C301BFA-8AF7-53A4-9BC3-8E9BCF75641D')).toBe(true);
    expect(isUuidText('00000000-0000-0000-0000-000000000000')).toBe(true);
  });

  it('refuses other spellings and near misses', () => {
    expect(isUuidText('7c301bfa8af753a49bc38e9bcf75641d')).toBe(false);
    expect(isUuidText('{7c301bfa-8af7-53a4-9bc3-8e9bcf75641d}')).toBe(false);
    expect(isUuidText('7c301bfa-8af7-53a4-9bc3-8e9bcf75641')).toBe(false);
    expect(isUuidText(' 7c301bfa-8af7-53a4-9bc3-8e9bcf75641d')).toBe(false);
  });
});
