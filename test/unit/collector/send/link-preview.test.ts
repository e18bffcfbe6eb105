import { describe, expect, it } from 'vitest';
import { findFirstLink } from '../../../../collector/send/link-preview.js';

describe('findFirstLink', () => {
  it('takes the first http or https link as written, without the punctuation that ends the sentence', () => {
    expect(findFirstLink('Agenda: https://example.org/meeting?day=sat. Then http://b.example')).toBe(
      'https://example.org/meeting?day=sat'
    );
    expect(findFirstLink('(see http://127.0.0.1:8080/page)')).toBe('http://127.0.0.1:8080/page');
    expect(findFirstLink('<https://example.org/a>')).toBe('https://example.org/a');
  });

  it('finds nothing in a text without a link or with another scheme', () => {
    expect(findFirstLink('no link here, example.org is a name')).toBeNull();
    expect(findFirstLink('ftp://example.org/file and file:///etc/passwd')).toBeNull();
  });
});
