import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FieldPathError, formatFieldPath, parseFieldPath, type FieldPathStep } from './fieldPath.ts';

const key = (k: string): FieldPathStep => ({ key: k });
const each: FieldPathStep = { each: true };

describe('parseFieldPath', () => {
  it.each([
    ['status', [key('status')]],
    ['status.phase', [key('status'), key('phase')]],
    ['status.containerStatuses[*].restartCount', [key('status'), key('containerStatuses'), each, key('restartCount')]],
    ['spec.containers[*]', [key('spec'), key('containers'), each]],
    ['a[*][*].b', [key('a'), each, each, key('b')]],
    ['metadata.labels.app\\.kubernetes\\.io/name', [key('metadata'), key('labels'), key('app.kubernetes.io/name')]],
    ['a\\[x\\]\\\\b', [key('a[x]\\b')]],
    [
      'metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration',
      [key('metadata'), key('annotations'), key('kubectl.kubernetes.io/last-applied-configuration')],
    ],
    ['data.a-b_c', [key('data'), key('a-b_c')]],
  ])('should read %s', (text, steps) => {
    const path = parseFieldPath(text);
    expect(path.steps).toEqual(steps);
    expect(path.text).toBe(text);
    expect(Object.isFrozen(path.steps)).toBe(true);
  });

  it.each([
    ['', 0, 'is empty'],
    ['.status', 0, 'a path starts with a key'],
    ['[*].a', 0, 'a path starts with a key'],
    ['status.', 7, 'a path does not end with "."'],
    ['status..phase', 7, 'an empty key'],
    ['a.[*]', 2, 'an empty key'],
    ['spec.containers[0].image', 15, 'only "[*]"'],
    ['spec.containers[*', 15, 'only "[*]"'],
    ['spec.containers[?(@.name)]', 15, 'only "[*]"'],
    ['a[*]b', 4, 'expected "." or "[*]" after "[*]"'],
    ['a]b', 1, 'an unescaped "]"'],
    ['a\\', 1, 'escapes nothing'],
    ['a\\b', 1, 'escapes only'],
    ['status .phase', 6, 'whitespace'],
    [' status', 0, 'whitespace'],
  ])('should refuse %j at %d, saying %s', (text, position, detail) => {
    let error: unknown;
    try {
      parseFieldPath(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FieldPathError);
    expect(error).toMatchObject({ reason: 'InvalidFieldPath', path: text, position });
    expect((error as FieldPathError).detail).toContain(detail);
    expect((error as Error).message).toContain(`field path "${text}" at ${position}`);
  });

  it('should refuse what is not a string, at position -1', () => {
    for (const bad of [undefined, null, 3, ['a'], { key: 'a' }]) {
      expect(() => parseFieldPath(bad)).toThrow(FieldPathError);
      try {
        parseFieldPath(bad);
      } catch (e) {
        expect((e as FieldPathError).position).toBe(-1);
      }
    }
  });

  it('should read back what formatFieldPath writes, for any keys without whitespace', () => {
    const keyText = fc.string({
      minLength: 1,
      maxLength: 8,
      unit: fc.constantFrom('a', 'Z', '.', '[', ']', '\\', '*', '/', '-', '_', 'é', '0'),
    });
    const steps = fc
      .tuple(keyText, fc.array(fc.oneof(keyText.map(key), fc.constant(each)), { maxLength: 6 }))
      .map(([first, rest]) => [key(first), ...rest]);
    fc.assert(
      fc.property(steps, (s) => {
        const text = formatFieldPath(s);
        const path = parseFieldPath(text);
        expect(path.steps).toEqual(s);
        expect(path.text).toBe(text);
      }),
    );
  });

  it('should refuse or read every string without throwing anything but FieldPathError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12, unit: fc.constantFrom('a', '.', '[', ']', '*', '\\', ' ') }), (text) => {
        try {
          const path = parseFieldPath(text);
          expect(parseFieldPath(path.text).steps).toEqual(path.steps);
        } catch (e) {
          expect(e).toBeInstanceOf(FieldPathError);
          expect((e as FieldPathError).position).toBeGreaterThanOrEqual(0);
          expect((e as FieldPathError).position).toBeLessThanOrEqual(text.length);
        }
      }),
    );
  });
});
