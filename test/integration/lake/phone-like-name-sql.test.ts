import { describe, expect, it } from 'vitest';
import {
  isPhoneLikeName,
  PHONE_LIKE_NAME_PATTERN,
  phoneLikeNameDigitsSql,
  phoneLikeNameSql,
} from '../../../common/phone-like-name.js';
import { phoneDigitsOfNumber } from '../../../common/whatsapp-jid.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const NAMES = [
  '+55 11 91234-5678',
  '(11) 91234.5678',
  '0055 21 99876 5432',
  '5511912345678',
  '+55\u00a011\u202f91234-5678',
  '\t12345678\n',
  '\u3000+1 (212) 555-0100\ufeff',
  '2024',
  '(1)',
  '1234567',
  'Ana 91234-5678',
  '+55 11 91234-5678 ✓',
  '١٢٣٤٥٦٧٨٩',
  '１２３４５６７８９',
  '12345678_',
  '',
];

const fresh = useFreshLake();

describe('phoneLikeNameSql (common/phone-like-name.ts)', () => {
  it('answers as isPhoneLikeName does, and reads the digits as phoneDigitsOfNumber does', async () => {
    const result = await fresh.lake.pool.query<{ name: string; isPhoneLike: boolean; digits: string }>(
      `SELECT name, ${phoneLikeNameSql('name', '$2')} AS "isPhoneLike", ${phoneLikeNameDigitsSql('name')} AS digits
         FROM unnest($1::text[]) AS name`,
      [NAMES, PHONE_LIKE_NAME_PATTERN]
    );
    expect(result.rows.map((row) => [row.name, row.isPhoneLike])).toEqual(
      NAMES.map((name) => [name, isPhoneLikeName(name)])
    );
    for (const row of result.rows.filter((r) => r.isPhoneLike && phoneDigitsOfNumber(r.name) !== undefined))
      expect(row.digits, row.name).toBe(phoneDigitsOfNumber(row.name));
  });
});
