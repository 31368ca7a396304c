import { describe, expect, it } from '@jest/globals';
import { of, timer } from 'rxjs';
import { fakeListerWatcher, page, pod, testObject, until, virtualClock } from './index.ts';

describe('the test kit', () => {
  it('should build a pod with only what is asked, in default unless told otherwise', () => {
    expect(pod('web')).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'main', image: 'nginx' }] },
    });
    const full = pod('db', { namespace: null, labels: { app: 'db' }, phase: 'Running', nodeName: 'n1', finalizers: ['x'] });
    expect(full.metadata).toEqual({ name: 'db', labels: { app: 'db' }, finalizers: ['x'] });
    expect([full.spec.nodeName, full.status?.phase]).toEqual(['n1', 'Running']);
    expect(testObject('a', '7').metadata).toEqual({ namespace: 'default', name: 'a', uid: 'uid-a', resourceVersion: '7' });
  });

  it('should fail a wait that never holds with what was awaited, and pass one that does', async () => {
    await expect(until(() => false, { timeoutMs: 30, what: 'the impossible' })).rejects.toThrow(
      'until: the impossible did not hold within 30 ms',
    );
    let n = 0;
    await until(() => ++n > 3);
    expect(n).toBe(4);
  });

  it('should answer a fake ListerWatcher as scripted, recording the calls', () => {
    const lw = fakeListerWatcher();
    lw.scriptList(of(page([testObject('a', '1')], '5', 'next')));
    const pages: unknown[] = [];
    lw.list({ limit: 1 }).subscribe((p) => pages.push(p));
    lw.list({ limit: 2 }).subscribe((p) => pages.push(p)); // nothing scripted: never answers
    expect(lw.listCalls).toEqual([{ limit: 1 }, { limit: 2 }]);
    expect(pages).toEqual([
      { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '5', continue: 'next' }, items: [testObject('a', '1')] },
    ]);
  });

  it('should advance a virtual clock by hand', async () => {
    const clock = virtualClock(100);
    let fired = false;
    timer(250, clock.ts).subscribe(() => (fired = true));
    await clock.advance(200);
    expect(fired).toBe(false);
    await clock.advance(300);
    expect(fired).toBe(true);
  });
});
