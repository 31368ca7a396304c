/**
 * What a hub replica counts: its clients and subscriptions, what it sent, what backpressure did,
 * its authorization decisions, its upgrades refused and its connections closed for a violation,
 * and its informers (one API server watch each). Read as a snapshot or as the hub's `metrics$`.
 */

/** One replica's figures at one moment: gauges (now) and counters (since start). */
export interface HubMetrics {
  /** WebSocket connections open. */
  readonly clients: number;
  /** Streams (lists and watches) open. */
  readonly subscriptions: number;
  /** Informers the hub holds: each one list and one watch on the API server. */
  readonly informers: number;
  /** Bytes sent (text frames' payloads). */
  readonly bytesSent: number;
  /** Messages sent. */
  readonly messagesSent: number;
  /** Watch events left out for slow clients (a later version of the same object sent instead). */
  readonly eventsCoalesced: number;
  /** Streams failed with 410 because their client read too slowly (each relists from the cache). */
  readonly resyncs: number;
  /** Authorization decisions, by outcome, fresh or from the authorizer's cache. */
  readonly decisions: {
    /** Allowed: decided afresh, or from the authorizer's cache. */
    readonly allowed: DecisionCounts;
    /** Denied: decided afresh, or from the authorizer's cache. */
    readonly denied: DecisionCounts;
    /** The authorizer failed (the hub answered 503). */
    readonly error: number;
  };
  /** Upgrades refused, by why. */
  readonly upgradesRefused: Readonly<Record<UpgradeRefusal, number>>;
  /** Connections the hub closed, by why. */
  readonly connectionsClosed: Readonly<Record<ClosedFor, number>>;
}

/** Decisions of one outcome. */
export interface DecisionCounts {
  /** Decided by a fresh review. */
  readonly fresh: number;
  /** Answered from the authorizer's cache. */
  readonly cached: number;
}

/** Why an upgrade was refused. */
export type UpgradeRefusal = 'origin' | 'unauthenticated' | 'forbidden' | 'tooManyConnections' | 'authenticatorError' | 'path';

/** Why the hub closed a connection. */
export type ClosedFor =
  'rate' | 'messageSize' | 'slowReader' | 'credentialExpired' | 'credentialRevoked' | 'authenticatorError' | 'shutdown';

/** The mutable counters behind `HubMetrics`. */
export class MetricCounters {
  clients = 0;
  subscriptions = 0;
  informers = 0;
  bytesSent = 0;
  messagesSent = 0;
  eventsCoalesced = 0;
  resyncs = 0;
  readonly decisions = { allowed: { fresh: 0, cached: 0 }, denied: { fresh: 0, cached: 0 }, error: 0 };
  readonly upgradesRefused: Record<UpgradeRefusal, number> = {
    origin: 0,
    unauthenticated: 0,
    forbidden: 0,
    tooManyConnections: 0,
    authenticatorError: 0,
    path: 0,
  };
  readonly connectionsClosed: Record<ClosedFor, number> = {
    rate: 0,
    messageSize: 0,
    slowReader: 0,
    credentialExpired: 0,
    credentialRevoked: 0,
    authenticatorError: 0,
    shutdown: 0,
  };

  /** Counts a decision. */
  decision(outcome: 'allowed' | 'denied' | 'error', cached: boolean): void {
    if (outcome === 'error') this.decisions.error++;
    else this.decisions[outcome][cached ? 'cached' : 'fresh']++;
  }

  /** A copy, as it is now. */
  snapshot(): HubMetrics {
    return {
      clients: this.clients,
      subscriptions: this.subscriptions,
      informers: this.informers,
      bytesSent: this.bytesSent,
      messagesSent: this.messagesSent,
      eventsCoalesced: this.eventsCoalesced,
      resyncs: this.resyncs,
      decisions: {
        allowed: { ...this.decisions.allowed },
        denied: { ...this.decisions.denied },
        error: this.decisions.error,
      },
      upgradesRefused: { ...this.upgradesRefused },
      connectionsClosed: { ...this.connectionsClosed },
    };
  }
}
