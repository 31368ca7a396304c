import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { hasSample, parseExposition, sampleValue } from '../test/exposition.ts';
import { hubMetrics, type ObservedHub } from './hubMetrics.ts';
import { MetricConflictError } from './errors.ts';

/** A hub's figures as `hub.metrics()` returns them, mutable for the test. */
function figures(clients: number) {
  return {
    clients,
    subscriptions: clients * 3,
    informers: 2,
    bytesSent: 1000,
    messagesSent: 10,
    eventsCoalesced: 4,
    resyncs: 1,
    decisions: { allowed: { fresh: 5, cached: 7 }, denied: { fresh: 2, cached: 0 }, error: 1 },
    upgradesRefused: { origin: 3, unauthenticated: 0 },
    connectionsClosed: { rate: 0, slowReader: 2 },
  };
}

describe('hubMetrics', () => {
  it("should report each replica's figures under its own hub label, read at each scrape", async () => {
    const registry = new Registry();
    const a = { now: figures(4) };
    const hubA: ObservedHub = { metrics: () => a.now };
    const registration = hubMetrics(hubA, { name: 'hub-0', registry });
    hubMetrics({ metrics: () => figures(9) }, { name: 'hub-1', registry });
    const scrape = async () => parseExposition(await registry.metrics());
    let samples = await scrape();
    expect(sampleValue(samples, 'rxinformer_hub_clients', { hub: 'hub-0' })).toBe(4);
    expect(sampleValue(samples, 'rxinformer_hub_clients', { hub: 'hub-1' })).toBe(9);
    expect(sampleValue(samples, 'rxinformer_hub_subscriptions', { hub: 'hub-1' })).toBe(27);
    expect(sampleValue(samples, 'rxinformer_hub_decisions_total', { hub: 'hub-0', outcome: 'allowed', source: 'cached' })).toBe(7);
    expect(sampleValue(samples, 'rxinformer_hub_upgrades_refused_total', { hub: 'hub-0', why: 'origin' })).toBe(3);
    expect(sampleValue(samples, 'rxinformer_hub_connections_closed_total', { hub: 'hub-0', why: 'slowReader' })).toBe(2);
    a.now = { ...figures(1), bytesSent: 5000 };
    samples = await scrape();
    expect(sampleValue(samples, 'rxinformer_hub_clients', { hub: 'hub-0' })).toBe(1);
    expect(sampleValue(samples, 'rxinformer_hub_sent_bytes_total', { hub: 'hub-0' })).toBe(5000);
    expect(() => hubMetrics(hubA, { name: 'hub-1', registry })).toThrow(MetricConflictError);
    registration.unregister();
    samples = await scrape();
    expect(hasSample(samples, 'rxinformer_hub_clients', { hub: 'hub-0' })).toBe(false);
    expect(sampleValue(samples, 'rxinformer_hub_clients', { hub: 'hub-1' })).toBe(9);
  });
});
