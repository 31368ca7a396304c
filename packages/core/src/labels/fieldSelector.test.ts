import { describe, expect, it } from '@jest/globals';
import { InvalidOptionsError } from '../errors.ts';
import { checkSelectors, FieldSelectorError, parseFieldSelector } from './fieldSelector.ts';
import { LabelSelectorError } from './labelSelector.ts';

describe('parseFieldSelector', () => {
  it('should parse =, == and != terms split at unescaped commas, skipping empty terms', () => {
    expect(parseFieldSelector('')).toEqual([]);
    expect(parseFieldSelector('metadata.name=web,,status.phase!=Running,spec.nodeName==')).toEqual([
      { field: 'metadata.name', operator: 'Equals', value: 'web' },
      { field: 'status.phase', operator: 'NotEquals', value: 'Running' },
      { field: 'spec.nodeName', operator: 'Equals', value: '' },
    ]);
  });

  it('should unescape \\\\, \\, and \\= in values and split a term at its first unescaped operator', () => {
    expect(parseFieldSelector('a=x\\,y\\=z\\\\,b\\=c=d')).toEqual([
      { field: 'a', operator: 'Equals', value: 'x,y=z\\' },
      { field: 'b\\=c', operator: 'Equals', value: 'd' },
    ]);
    expect(() => parseFieldSelector('a!==b')).toThrow('unescaped "=" in value "=b"'); // `!=` first, then the value
  });

  it.each([
    ['status.phase', '"status.phase" has no operator (=, == or !=) at position 0'],
    ['a=b,c', '"c" has no operator (=, == or !=) at position 4'],
    ['=b', '"=b" names no field at position 0'],
    ['a=b=c', 'unescaped "=" in value "b=c" (write "\\=") at position 0'],
    ['a=b\\x', 'invalid escape sequence "\\x" in value "b\\x" at position 0'],
    ['a=b\\', 'invalid escape sequence "\\" in value "b\\" at position 0'],
  ])('should refuse %p', (selector, detail) => {
    expect(() => parseFieldSelector(selector)).toThrow(FieldSelectorError);
    expect(() => parseFieldSelector(selector)).toThrow(`invalid field selector "${selector}": ${detail}`);
  });
});

describe('checkSelectors', () => {
  it('should throw InvalidOptionsError with the parser error as cause for either selector', () => {
    expect(() => checkSelectors({ labelSelector: 'app in (a,b),!canary', fieldSelector: 'metadata.name=x' })).not.toThrow();
    expect(() => checkSelectors({})).not.toThrow();
    const label = (() => {
      try {
        checkSelectors({ labelSelector: 'replicate in (a' });
      } catch (e) {
        return e;
      }
    })();
    expect(label).toBeInstanceOf(InvalidOptionsError);
    expect((label as Error).cause).toBeInstanceOf(LabelSelectorError);
    expect(() => checkSelectors({ fieldSelector: 'phase' })).toThrow(InvalidOptionsError);
    expect(() => checkSelectors({ fieldSelector: 7 })).toThrow('fieldSelector must be a string');
  });
});
