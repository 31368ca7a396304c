import { describe, expect, it } from '@jest/globals';
import { FieldSelectorError, fieldsForResource, matchesFields, parseFieldSelector } from './fieldSelector.ts';

describe('parseFieldSelector', () => {
  const pods = fieldsForResource('pods');
  it('should parse =, == and != with escapes, and match', () => {
    const sel = parseFieldSelector('spec.nodeName=n1,status.phase!=Failed,metadata.name==a\\,b', pods);
    expect(sel).toEqual([
      { field: 'spec.nodeName', negate: false, value: 'n1' },
      { field: 'status.phase', negate: true, value: 'Failed' },
      { field: 'metadata.name', negate: false, value: 'a,b' },
    ]);
    expect(matchesFields(sel, { metadata: { name: 'a,b' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } } as never)).toBe(true);
    expect(matchesFields(sel, { metadata: { name: 'a,b' }, spec: { nodeName: 'n2' } } as never)).toBe(false);
  });
  it('should refuse unsupported fields and bad syntax like the real server', () => {
    expect(() => parseFieldSelector('spec.foo=1', pods)).toThrow('field label not supported: spec.foo');
    expect(() => parseFieldSelector('spec.nodeName', pods)).toThrow(FieldSelectorError);
    expect(() => parseFieldSelector('status.phase=Running', fieldsForResource('configmaps'))).toThrow(FieldSelectorError);
    // kube-apiserver 1.36's answers, word for word: field names are not trimmed, a value may not
    // hold an unescaped `=` (given as its code point), and `\\` escapes only `\\`, `,` and `=`.
    expect(() => parseFieldSelector(' metadata.name=x', pods)).toThrow('field label not supported:  metadata.name');
    expect(() => parseFieldSelector('metadata.name=x=y', pods)).toThrow('invalid field selector: unescaped character in value: 61');
    expect(() => parseFieldSelector('metadata.name=x\\q', pods)).toThrow('invalid field selector: invalid escape sequence: \\q');
    expect(() => parseFieldSelector('metadata.name=x,y', pods)).toThrow("invalid selector: 'metadata.name=x,y'; can't understand 'y'");
    expect(() => parseFieldSelector('metadata.name=x,=y', pods)).toThrow('field label not supported: ');
    expect(parseFieldSelector('metadata.name= x', pods)).toEqual([{ field: 'metadata.name', negate: false, value: ' x' }]);
  });
});
