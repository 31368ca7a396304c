import { describe, expect, it } from '@jest/globals';
import { createTlsDispatcher } from '../src/tlsDispatcher.ts';

// The dispatcher holder alone: which dispatcher each credential read gets.
describe('createTlsDispatcher', () => {
  const cert = (s: string) => ({ cert: Buffer.from(s), key: Buffer.from('k') });

  it('should keep one dispatcher while the material is unchanged and make a new one when it rotates', async () => {
    const tls = createTlsDispatcher(undefined);
    const a = tls.forMaterial(cert('one'), 1);
    expect(tls.forMaterial(cert('one'), 2)).toBe(a); // equal content, other buffers
    const b = tls.forMaterial(cert('two'), 3);
    expect(b).not.toBe(a);
    expect(tls.forMaterial(cert('two'), 4)).toBe(b);
    await tls.close();
  });

  it("should never switch back to material read before the current dispatcher's", async () => {
    const tls = createTlsDispatcher(undefined);
    const rotated = tls.forMaterial(cert('new'), 2);
    expect(tls.forMaterial(cert('old'), 1)).toBe(rotated); // a slow read that started first
    expect(tls.forMaterial(cert('new'), 3)).toBe(rotated);
    expect(tls.forMaterial(cert('newer'), 4)).not.toBe(rotated); // a later read with new material does rotate
    await tls.close();
  });
});
