import { describe, expect, it } from '@jest/globals';
import { InvalidObjectError } from '../errors.ts';
import { metaNamespaceKeyFunc, namespaceIndexFunc, splitMetaNamespaceKey } from './keys.ts';

describe('metaNamespaceKeyFunc', () => {
  it('should make namespace/name keys and name keys for cluster-scoped objects', () => {
    expect(metaNamespaceKeyFunc({ metadata: { namespace: 'default', name: 'web' } })).toBe('default/web');
    expect(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(splitMetaNamespaceKey('default/web')).toEqual({ namespace: 'default', name: 'web' });
    expect(splitMetaNamespaceKey('node-1')).toEqual({ name: 'node-1' });
    expect(namespaceIndexFunc({ metadata: { name: 'n' } })).toEqual(['']);
  });

  it('should throw InvalidObjectError for an object without a name', () => {
    expect(() => metaNamespaceKeyFunc({ metadata: {} })).toThrow(InvalidObjectError);
    expect(() => metaNamespaceKeyFunc({} as never)).toThrow('object has no metadata.name');
  });
});
