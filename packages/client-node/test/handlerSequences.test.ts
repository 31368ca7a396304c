import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { compareSequences, DIFFERENCE_RULES, keySequences, showDifferences, viewOfCalls, type HandlerCall } from './handlerSequences.ts';

// The comparison of differential.test.ts, on made-up calls: what it lets through, and that anything
// else fails it, key by key.
const add = (key: string, uid: string, rv: string, initial = false): HandlerCall => ({ event: 'add', key, uid, rv, initial });
const update = (key: string, uid: string, rv: string, oldUid: string, oldRv: string): HandlerCall => ({
  event: 'update',
  key,
  uid,
  rv,
  oldUid,
  oldRv,
});
const del = (key: string, uid: string, rv: string, finalStateUnknown = false): HandlerCall => ({
  event: 'delete',
  key,
  uid,
  rv,
  finalStateUnknown,
});
const compare = (rx: HandlerCall[], go: HandlerCall[], rules = DIFFERENCE_RULES) =>
  compareSequences(keySequences(rx), keySequences(go), rules);
const rulesBut = (name: string) => DIFFERENCE_RULES.filter((r) => r.name !== name);

describe('comparing handler calls key by key', () => {
  const common = [
    add('ns/a', 'u1', '10', true),
    add('ns/b', 'u2', '11', true),
    update('ns/a', 'u1', '12', 'u1', '10'),
    del('ns/b', 'u2', '13'),
  ];

  it('should find nothing when both delivered the same events per key, in whatever order across keys', () => {
    const go = [common[1], common[0], common[3], common[2]];
    expect(compare(common, go)).toEqual({ differences: [], applied: {} });
  });

  it('should drop re-deliveries of the last object delivered (resync, unchanged relist) and count them', () => {
    const rx = [...common.slice(0, 3), update('ns/a', 'u1', '12', 'u1', '12'), common[3], update('ns/a', 'u1', '12', 'u1', '12')];
    const go = [common[0], update('ns/a', 'u1', '10', 'u1', '10'), ...common.slice(1)];
    expect(keySequences(rx).redeliveries).toBe(2);
    expect(keySequences(go).redeliveries).toBe(1);
    expect(compare(rx, go).differences).toEqual([]);
  });

  it('should keep a same-version update of anything but the last object delivered, and report it', () => {
    const rx = [...common, update('ns/a', 'u1', '10', 'u1', '10')]; // an older object than the one delivered
    expect(keySequences(rx).redeliveries).toBe(0);
    const { differences } = compare(rx, common);
    expect(differences.map((d) => d.key)).toEqual(['ns/a']);
    expect(showDifferences(differences)).toBe(
      [
        'ns/a (">": the first event no rule explains):',
        '  rxinformer:',
        '      add u1@10 initial',
        '      update u1@12 <- u1@10',
        '    > update u1@10 <- u1@10',
        '  client-go:',
        '      add u1@10 initial',
        '      update u1@12 <- u1@10',
        '    > (no more)',
      ].join('\n'),
    );
  });

  it('should allow a relisted new UID as delete + add against client-go’s update, by its rule', () => {
    const rx = [...common, del('ns/a', 'u1', '12', true), add('ns/a', 'u3', '20')];
    const go = [...common, update('ns/a', 'u3', '20', 'u1', '12')];
    expect(compare(rx, go)).toEqual({ differences: [], applied: { 'new-uid-in-relist': 1 } });
    // Without the rule, the test fails on that key.
    expect(compare(rx, go, []).differences).toEqual([
      { key: 'ns/a', rx: keySequences(rx).byKey.get('ns/a'), rxAt: 2, go: keySequences(go).byKey.get('ns/a'), goAt: 2 },
    ]);
    // The rule's pattern only: a delete seen on a watch (the very-short-watch rule's), or other
    // versions, are differences.
    const alone = DIFFERENCE_RULES.filter((r) => r.name === 'new-uid-in-relist');
    expect(compare([...common, del('ns/a', 'u1', '12'), add('ns/a', 'u3', '20')], go, alone).differences).toHaveLength(1);
    expect(compare([...common, del('ns/a', 'u1', '12', true), add('ns/a', 'u3', '21')], go).differences).toHaveLength(1);
  });

  it('should allow changes replayed by a watch against client-go’s one relist call per key, by its rule', () => {
    // After a watch closed at once: rxinformer watched again (each change), client-go relisted.
    const rx = [
      ...common,
      update('ns/a', 'u1', '13', 'u1', '12'), // updated twice
      update('ns/a', 'u1', '14', 'u1', '13'),
      add('ns/c', 'u4', '15'), // created, updated
      update('ns/c', 'u4', '16', 'u4', '15'),
      add('ns/e', 'u5', '17'), // created and deleted
      del('ns/e', 'u5', '18'),
    ];
    const go = [...common, update('ns/a', 'u1', '14', 'u1', '12'), add('ns/c', 'u4', '16')];
    expect(compare(rx, go)).toEqual({ differences: [], applied: { 'very-short-watch': 3 } });
    expect(compare(rx, go, rulesBut('very-short-watch')).differences.map((d) => d.key)).toEqual(['ns/a', 'ns/c', 'ns/e']);
    // Deleted (the watch's object is the deleted one, a later version), recreated, out and back in.
    const held = [add('ns/a', 'u1', '10', true), add('ns/b', 'u2', '11', true), add('ns/d', 'u6', '12', true)];
    const rx2 = [
      ...held,
      del('ns/a', 'u1', '20'),
      del('ns/b', 'u2', '21'),
      add('ns/b', 'u7', '22'),
      del('ns/d', 'u6', '23'),
      add('ns/d', 'u6', '24'),
    ];
    const go2 = [...held, del('ns/a', 'u1', '10', true), update('ns/b', 'u7', '22', 'u2', '11'), update('ns/d', 'u6', '24', 'u6', '12')];
    expect(compare(rx2, go2)).toEqual({ differences: [], applied: { 'very-short-watch': 3 } });
  });

  it.each([
    ['a change missed', [update('ns/a', 'u1', '13', 'u1', '12')], [update('ns/a', 'u1', '14', 'u1', '12')]],
    [
      'a gap in the changes',
      [update('ns/a', 'u1', '13', 'u1', '12'), update('ns/a', 'u1', '15', 'u1', '14')],
      [update('ns/a', 'u1', '15', 'u1', '12')],
    ],
    ['another object at the end', [del('ns/a', 'u1', '13'), add('ns/a', 'u3', '14')], [update('ns/a', 'u3', '15', 'u1', '12')]],
    ['another object at the start', [update('ns/a', 'u1', '14', 'u1', '13')], [update('ns/a', 'u1', '14', 'u1', '12')]],
    ['a deletion seen by neither watch', [del('ns/a', 'u1', '13', true)], [del('ns/a', 'u1', '12', true)]],
    ['a creation client-go did not list', [add('ns/x', 'u9', '20')], []],
  ])('should not take %s for a replay', (_, after, goAfter) => {
    expect(compare([...common.slice(0, 3), ...after], [...common.slice(0, 3), ...goAfter]).differences).toHaveLength(1);
  });

  it.each([
    ['isInInitialList', [add('ns/a', 'u1', '10', false)], [add('ns/a', 'u1', '10', true)]],
    ['finalStateUnknown', [add('ns/a', 'u1', '10'), del('ns/a', 'u1', '10', true)], [add('ns/a', 'u1', '10'), del('ns/a', 'u1', '10')]],
    ['a missing event', [add('ns/a', 'u1', '10')], [add('ns/a', 'u1', '10'), update('ns/a', 'u1', '11', 'u1', '10')]],
    ['another resource version', [add('ns/a', 'u1', '10'), del('ns/a', 'u1', '12')], [add('ns/a', 'u1', '10'), del('ns/a', 'u1', '11')]],
    ['an event of a key the other never saw', [add('ns/x', 'u9', '10')], []],
  ])('should report a difference in %s', (_, rx, go) => {
    const { differences } = compare(rx, go);
    expect(differences).toHaveLength(1);
    expect(showDifferences(differences)).toContain('>');
  });

  it('should rebuild the cache a handler holds from its calls', () => {
    expect(viewOfCalls([...common, del('ns/a', 'u1', '12', true), add('ns/a', 'u3', '20')])).toEqual(['ns/a=u3@20']);
  });
});

describe('docs/concept-map.md', () => {
  it('should list every allowed difference by its rule’s name, and no other', () => {
    const doc = readFileSync(new URL('../../../docs/concept-map.md', import.meta.url), 'utf8');
    const section = doc.split(/^## /m).find((s) => s.startsWith('Where rxinformer and client-go deliver different events'));
    expect(section).toBeDefined();
    const names = [...section!.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(names).toEqual(DIFFERENCE_RULES.map((r) => r.name));
  });
});
