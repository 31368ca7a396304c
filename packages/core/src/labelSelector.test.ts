import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { LabelSelectorError, fromLabelSelectorObject, labelSelectorToString, matchesLabels, parseLabelSelector, type LabelRequirement } from './labelSelector.ts';

describe('parseLabelSelector', () => {
  it('should parse every operator', () => {
    expect(parseLabelSelector('a=1, b==2,c!=3,d in (x, y),e notin (z),f,!g')).toEqual([
      { key: 'a', operator: 'Equals', values: ['1'] },
      { key: 'b', operator: 'Equals', values: ['2'] },
      { key: 'c', operator: 'NotEquals', values: ['3'] },
      { key: 'd', operator: 'In', values: ['x', 'y'] },
      { key: 'e', operator: 'NotIn', values: ['z'] },
      { key: 'f', operator: 'Exists', values: [] },
      { key: 'g', operator: 'DoesNotExist', values: [] },
    ]);
    expect(parseLabelSelector('')).toEqual([]);
    expect(parseLabelSelector('app.kubernetes.io/name=web')[0].key).toBe('app.kubernetes.io/name');
    expect(parseLabelSelector('a=')[0].values).toEqual(['']);
  });

  it('should refuse invalid selectors with the position', () => {
    for (const bad of ['a in (x', 'a ~ b', '-a=b', 'a=b c', 'a=' + 'x'.repeat(64), 'Bad_Prefix/a=b', 'a,', '=b']) {
      expect(() => parseLabelSelector(bad)).toThrow(LabelSelectorError);
    }
    expect(() => parseLabelSelector('a=b,c ~ d')).toThrow(/at 6/);
  });

  it('should match labels like the API server', () => {
    const sel = parseLabelSelector('app=web,tier notin (db),!canary,env');
    expect(matchesLabels(sel, { app: 'web', env: 'prod' })).toBe(true);
    expect(matchesLabels(sel, { app: 'web', env: 'prod', tier: 'db' })).toBe(false);
    expect(matchesLabels(sel, { app: 'web', env: 'prod', canary: '' })).toBe(false);
    expect(matchesLabels(sel, { app: 'web' })).toBe(false);
    expect(matchesLabels(parseLabelSelector('x!=1'), undefined)).toBe(true);
    expect(matchesLabels(fromLabelSelectorObject({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] }), { a: '1', b: '' })).toBe(true);
  });

  it('should parse its own string form back to the same selector', () => {
    const key = fc.stringMatching(/^([a-z][a-z0-9]{0,5}(\.[a-z][a-z0-9]{0,4})?\/)?[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,8}[a-zA-Z0-9])?$/);
    const value = fc.stringMatching(/^([A-Za-z0-9]([A-Za-z0-9_.-]{0,8}[A-Za-z0-9])?)?$/);
    const req: fc.Arbitrary<LabelRequirement> = fc.oneof(
      fc.record({ key, operator: fc.constantFrom('Equals', 'NotEquals') as fc.Arbitrary<LabelRequirement['operator']>, values: value.map((v) => [v]) }),
      fc.record({ key, operator: fc.constantFrom('In', 'NotIn') as fc.Arbitrary<LabelRequirement['operator']>, values: fc.array(value.filter((v) => v !== ''), { minLength: 1, maxLength: 3 }) }),
      fc.record({ key, operator: fc.constantFrom('Exists', 'DoesNotExist') as fc.Arbitrary<LabelRequirement['operator']>, values: fc.constant([] as string[]) }),
    );
    fc.assert(fc.property(fc.array(req, { maxLength: 5 }), (sel) => {
      expect(parseLabelSelector(labelSelectorToString(sel))).toEqual(sel);
    }), { numRuns: 300 });
  });
});
