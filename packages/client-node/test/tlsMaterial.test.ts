import { describe, expect, it } from '@jest/globals';
import { createMaterialHolder } from '../src/tlsMaterial.ts';

// The holder alone: which connections each credential read gets.
describe('createMaterialHolder', () => {
  const closed: object[] = [];
  const make = () => {
    const connections = { close: async () => void closed.push(connections) };
    return connections;
  };
  const cert = (s: string) => ({ cert: Buffer.from(s), key: Buffer.from('k') });

  it('should keep one set of connections while the material is unchanged and make new ones when it rotates, closing the old', async () => {
    const tls = createMaterialHolder(make);
    const a = tls.forMaterial(cert('one'), 1);
    expect(tls.forMaterial(cert('one'), 2)).toBe(a); // equal content, other buffers
    const b = tls.forMaterial(cert('two'), 3);
    expect(b).not.toBe(a);
    expect(tls.forMaterial(cert('two'), 4)).toBe(b);
    expect(tls.all()).toEqual([b, a]); // a is closing
    await tls.close();
    expect(closed).toEqual(expect.arrayContaining([a, b]));
    expect(tls.all()).toEqual([]);
  });

  it("should never switch back to material read before the current connections'", async () => {
    const tls = createMaterialHolder(make);
    const rotated = tls.forMaterial(cert('new'), 2);
    expect(tls.forMaterial(cert('old'), 1)).toBe(rotated); // a slow read that started first
    expect(tls.forMaterial(cert('new'), 3)).toBe(rotated);
    expect(tls.forMaterial(cert('newer'), 4)).not.toBe(rotated); // a later read with new material does rotate
    await tls.close();
  });
});
