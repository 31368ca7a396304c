import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { cutNote, eventName, NOTE_LIMIT_BYTES } from './eventBody.ts';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('cutNote', () => {
  it('should cut at 1,024 bytes of UTF-8 between characters, not at 1,024 UTF-16 units', () => {
    expect(cutNote('é'.repeat(1500))).toBe('é'.repeat(512)); // 2 bytes each: 1,024 exactly
    expect(cutNote('漢'.repeat(800))).toBe('漢'.repeat(341)); // 3 bytes each: 1,023, a 342nd would be 1,026
    expect(cutNote('😀'.repeat(600))).toBe('😀'.repeat(256)); // a surrogate pair, 4 bytes each
    expect(cutNote(`a${'😀'.repeat(600)}`)).toBe(`a${'😀'.repeat(255)}`); // 1,021: the next pair left out whole
    expect(cutNote('n'.repeat(5000))).toBe('n'.repeat(1024));
    expect(cutNote(`${'é'.repeat(511)}a`)).toBe(`${'é'.repeat(511)}a`); // 1,023: kept whole
    expect(cutNote(undefined)).toBeUndefined();
  });

  it('should keep the longest prefix of at most 1,024 bytes that splits no surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constantFrom('a', 'é', '漢', '😀', '\ud800', '\udc00'),
            fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
          ),
          minLength: 250,
          maxLength: 1500,
          size: 'max',
        }),
        (note) => {
          const cut = cutNote(note)!;
          expect(note.startsWith(cut)).toBe(true);
          expect(bytes(cut)).toBeLessThanOrEqual(NOTE_LIMIT_BYTES);
          const k = cut.length;
          if (k === note.length) return;
          // not a pair split, and the next whole character would not have fitted
          const pair = /[\ud800-\udbff]/.test(note[k - 1] ?? '') && /[\udc00-\udfff]/.test(note[k]);
          expect(pair).toBe(false);
          const next = /[\ud800-\udbff]/.test(note[k]) && /[\udc00-\udfff]/.test(note[k + 1] ?? '') ? 2 : 1;
          expect(bytes(note.slice(0, k + next))).toBeGreaterThan(NOTE_LIMIT_BYTES);
        },
      ),
    );
  });
});

describe('eventName', () => {
  it('should be the object name, a dot, the time in hex and the unique part', () => {
    expect(eventName('cm-x', 0x18c4f3a2b1d, 'abc0')).toBe('cm-x.18c4f3a2b1d-abc0');
    expect(eventName(undefined, 1, 'u')).toBe('event.1-u');
  });

  it('should stay a DNS subdomain of at most 253 characters, even for a 253-character object name', () => {
    const long = `${'a'.repeat(62)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`; // 253
    const name = eventName(long, 1_764_400_000_000, `${'f'.repeat(12)}ffffffff`);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(SUBDOMAIN);
    expect(name.startsWith(long.slice(0, 200))).toBe(true);
    expect(eventName('system:controller:Job_Ctl', 5, 'x')).toBe('system-controller-job-ctl.5-x');
    expect(eventName('-.-', 5, 'x')).toBe('event.5-x');
  });

  it('should give a DNS subdomain of at most 253 characters for any object name', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '.', ':', '_', 'é'), maxLength: 300, size: 'max' }),
        fc.nat({ max: 2 ** 46 }),
        fc.stringMatching(/^[0-9a-f]{12}[0-9a-f]{1,8}$/),
        (objectName, ms, unique) => {
          const name = eventName(objectName, ms, unique);
          expect(name.length).toBeLessThanOrEqual(253);
          expect(name).toMatch(SUBDOMAIN);
          expect(name.endsWith(`.${ms.toString(16)}-${unique}`)).toBe(true);
        },
      ),
    );
  });
});
