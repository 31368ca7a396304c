import { describe, expect, it } from '@jest/globals';
import { generateNameSuffix, validateObjectName } from './validation.ts';

describe('validateObjectName', () => {
  it('should apply subdomain rules to most kinds and label rules to namespaces and services', () => {
    expect(validateObjectName('pods', 'web-1.a')).toEqual([]);
    expect(validateObjectName('pods', 'Web')).toHaveLength(1);
    expect(validateObjectName('services', 'web.a')[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    expect(validateObjectName('namespaces', 'x'.repeat(64))).toHaveLength(1);
    expect(validateObjectName('configmaps', 'x'.repeat(253))).toEqual([]);
  });
  it('should make 5-character suffixes from the server alphabet', () => {
    let i = 0;
    const s = generateNameSuffix(() => (i++ % 27) / 27);
    expect(s).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});
