import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '@rxinformer/apiserver-sim';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { startFleet, type FleetRow } from './fleet.ts';

const rowsWhere = (fleet: ReturnType<typeof startFleet>, check: (rows: FleetRow[]) => boolean) =>
  firstValueFrom(fleet.rows$.pipe(filter(check), timeout({ first: 60_000 })));
const text = (rows: FleetRow[]) => rows.map((r) => `${r.cluster}/${r.name}${r.labelled ? ' labelled' : ''}`).sort();

describe('startFleet', () => {
  let sims: ApiServer[] = [];
  let dir: string;
  let fleet: ReturnType<typeof startFleet> | undefined;
  beforeAll(async () => {
    sims = await Promise.all([1, 2].map((seed) => startApiServer({ port: 0, seed })));
    dir = mkdtempSync(join(tmpdir(), 'fleet-'));
  });
  afterAll(async () => {
    await fleet?.stop();
    await Promise.all(sims.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('should show and label the ConfigMaps of every cluster of the folder, and drop a cluster whose file goes', async () => {
    sims.forEach((sim, i) => {
      sim.storage.create('namespaces', { metadata: { name: 'shop' } });
      sim.storage.create('configmaps', { metadata: { name: `settings-${i}` } }, 'shop');
    });
    writeFileSync(join(dir, 'eu-1.yaml'), sims[0].kubeconfigYaml());
    writeFileSync(join(dir, 'us-1.yaml'), sims[1].kubeconfigYaml());
    fleet = startFleet(dir, 'shop');
    const labelled = await rowsWhere(fleet, (rows) => rows.length === 2 && rows.every((r) => r.labelled));
    expect(text(labelled)).toEqual(['eu-1/settings-0 labelled', 'us-1/settings-1 labelled']);
    expect(sims[1].storage.get('configmaps', 'shop', 'settings-1').metadata!.labels).toEqual({ 'example.com/cluster': 'us-1' });
    expect(fleet.failing()).toEqual([]);

    unlinkSync(join(dir, 'us-1.yaml'));
    expect(text(await rowsWhere(fleet, (rows) => rows.length === 1))).toEqual(['eu-1/settings-0 labelled']);
  });
});
