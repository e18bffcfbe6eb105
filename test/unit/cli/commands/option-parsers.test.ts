import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { asOptionParser, integerInRange, outputPath, tcpPort } from '../../../../cli/commands/option-parsers.js';

describe('CLI option parsers', () => {
  it('integerInRange accepts plain decimal digits in range and refuses the rest with InvalidArgumentError', () => {
    const limit = integerInRange(1, 1_000);
    expect(limit('50')).toBe(50);
    expect(limit('1000')).toBe(1_000);
    expect(limit('007')).toBe(7);
    for (const bad of [
      'abc',
      '',
      '1.5',
      '0',
      '1001',
      '1e9',
      '-3',
      '0x10',
      ' 5',
      '5 ',
      '5.0',
      '+5',
      '1e1',
      '0b1',
      '5\n',
    ]) {
      expect(() => limit(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => limit('abc')).toThrow('must be an integer from 1 to 1000.');
    expect(() => integerInRange(0, Number.MAX_SAFE_INTEGER)('-1')).toThrow('must be an integer of at least 0.');
    expect(() => integerInRange(0, 10)('-0')).toThrow('must be an integer from 0 to 10.');
  });

  it('tcpPort refuses 0 and ports above 65535', () => {
    expect(tcpPort('7233')).toBe(7_233);
    expect(() => tcpPort('0')).toThrow(InvalidArgumentError);
    expect(() => tcpPort('65536')).toThrow(InvalidArgumentError);
  });

  it('asOptionParser turns a parser error into InvalidArgumentError with its message', () => {
    const parse = asOptionParser((value: string) => {
      if (value !== 'ok') throw new Error('must be ok');
      return value;
    });
    expect(parse('ok')).toBe('ok');
    expect(() => parse('no')).toThrow(InvalidArgumentError);
    expect(() => parse('no')).toThrow('must be ok.');
  });

  it('outputPath refuses an empty or blank path', () => {
    expect(outputPath('report.html')).toBe('report.html');
    for (const bad of ['', ' ', '\t']) expect(() => outputPath(bad), JSON.stringify(bad)).toThrow(InvalidArgumentError);
    expect(() => outputPath('')).toThrow('expected a path, not an empty string.');
  });
});
