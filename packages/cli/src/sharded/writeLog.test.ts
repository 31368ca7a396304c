import { describe, expect, it } from '@jest/globals';
import { RECONCILE_MARK, ReconcileLog, leaderOverlaps, overlappingReconciles } from './writeLog.ts';

const write = (mark: string) => ({ metadata: { annotations: { [RECONCILE_MARK]: mark } } });

describe('ReconcileLog and overlappingReconciles', () => {
  it('should pair start and end marks, and find a key reconciled by two replicas at overlapping times', () => {
    const log = new ReconcileLog();
    log.record('default/a', write('r1/1/start'), 10);
    log.record('default/a', write('r2/1/start'), 15); // r2 starts while r1 is still at it
    log.record('default/a', write('r1/1/end'), 20);
    log.record('default/a', write('r2/1/end'), 30);
    log.record('default/b', write('r1/2/start'), 40);
    log.record('default/b', write('r1/2/end'), 45);
    log.record('default/b', write('r2/2/start'), 46); // after r1 ended: fine
    log.record('default/b', write('r2/2/end'), 50);
    expect(overlappingReconciles(log.all(100), 100)).toEqual(['default/a: r1 10-20 / r2 15-30']);
  });

  it("should count a killed replica's open reconcile until it died", () => {
    const log = new ReconcileLog();
    log.record('default/a', write('r1/1/start'), 10);
    log.record('default/a', write('r2/1/start'), 50);
    log.record('default/a', write('r2/1/end'), 60);
    expect(overlappingReconciles(log.all(100), 100)).toHaveLength(1); // r1 alive until 100: it overlapped
    expect(overlappingReconciles(log.all(40), 40)).toHaveLength(0);
    const died = (at: number) => (by: string) => (by === 'r1' ? at : 100);
    expect(overlappingReconciles(log.all(died(55)), 100)).toEqual(['default/a: r1 10-55 / r2 50-60']);
    expect(overlappingReconciles(log.all(died(30)), 100)).toEqual([]); // dead before r2 began
  });

  it('should end a reconcile whose end mark never came when its replica starts the key again', () => {
    const log = new ReconcileLog();
    log.record('default/a', write('r1/1/start'), 10); // its end write failed: the key is queued again
    log.record('default/a', write('r1/2/start'), 30);
    log.record('default/a', write('r1/2/end'), 31);
    log.record('default/a', write('r2/1/start'), 50); // the slot moved on
    log.record('default/a', write('r2/1/end'), 51);
    expect(log.all(100).map((i) => `${i.by} ${i.from}-${i.to}`)).toEqual(['r1 10-30', 'r1 30-31', 'r2 50-51']);
    expect(overlappingReconciles(log.all(100), 100)).toEqual([]);
  });
});

describe('leaderOverlaps', () => {
  it('should report heartbeats written while the Lease named another holder', () => {
    const holderAt = (t: number) => (t < 100 ? 'a' : 'b');
    expect(
      leaderOverlaps(
        [
          { by: 'a', at: 50 },
          { by: 'a', at: 120 },
          { by: 'b', at: 130 },
        ],
        holderAt,
      ),
    ).toEqual([{ by: 'a', at: 120, holder: 'b' }]);
  });
});
