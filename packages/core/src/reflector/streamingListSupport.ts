/**
 * What is known of a server's support for streaming lists (KEP-3157's watch-list: a watch with
 * `sendInitialEvents=true` in place of a paged list), shared by the reflectors that list from it:
 * the first to be refused (kube-apiserver with its `WatchList` gate off answers 422; an older or
 * aggregated server ignores the parameter and answers a plain watch) spares the others the
 * question. A refusal is forgotten after `recheckAfterMs`, so that a server upgraded or
 * reconfigured since is asked again; a streaming list the server serves forgets it at once.
 */
import { checkNumber, InvalidOptionsError, KubeApiError } from '../errors.ts';

/**
 * One server's support for streaming lists, for one API group version (aggregated API servers
 * serve some group versions of a cluster, each with its own library and gates). The reflector
 * asks it before each list and tells it what the server answered.
 */
export interface StreamingListSupport {
  /** True when a list starting at `now` (ms, the reflector scheduler's clock) should stream. */
  shouldStream(now: number): boolean;
  /** The server refused or ignored a streaming list at `now`: lists page until `recheckAfterMs` later. */
  refused(now: number): void;
  /** The server served a streaming list to its end: any refusal is forgotten. */
  served(): void;
  /** When the refusal remembered was (ms), or undefined when none is. */
  readonly refusedAt: number | undefined;
}

/**
 * One server's support records, one per API group version (`'v1'` for the core group, `'apps/v1'`):
 * what an informer factory holds for the server its ListerWatchers reach.
 */
export interface StreamingListMemory {
  /** The record of `groupVersion`, made on first request. */
  of(groupVersion: string): StreamingListSupport;
}

/** Options of `createStreamingListMemory`. */
export interface StreamingListMemoryOptions {
  /**
   * How long a refusal is remembered, in ms: the first list to start after it asks for a stream
   * again (one request: a 422 where the gate is off). Default 600 000 (10 minutes, the span of the
   * reflector's longest watch). `Infinity`: never asked again (but a list the server streams for
   * another reflector sharing the record still clears it).
   */
  recheckAfterMs?: number;
}

/** Default of `recheckAfterMs`. */
export const DEFAULT_STREAMING_RECHECK_MS = 600_000;

/**
 * Creates the memory of one server's support for streaming lists. Informer factories make one
 * each (client-node's one per transport, so that the factories of one cluster share it); pass it
 * as the factory's `streamingLists`, or one record (`memory.of('v1')`) as a reflector's
 * `streamingListSupport`, to share it wider. Throws `InvalidOptionsError` for a bad `recheckAfterMs`.
 *
 * @example
 * const memory = createStreamingListMemory({ recheckAfterMs: 60_000 });
 * const a = createInformerFactory(source, { streamingLists: memory });
 * const b = createInformerFactory(source, { streamingLists: memory }); // asks no more once a was refused
 *
 * Caveat: the times are those of the reflectors' schedulers; share a memory only between
 * reflectors whose schedulers keep one clock.
 */
export function createStreamingListMemory(options: StreamingListMemoryOptions = {}): StreamingListMemory {
  const recheckAfterMs = checkNumber('recheckAfterMs', options.recheckAfterMs, DEFAULT_STREAMING_RECHECK_MS, 0, { infinite: true });
  const records = new Map<string, StreamingListSupport>();
  return {
    of(groupVersion) {
      let record = records.get(groupVersion);
      if (!record) records.set(groupVersion, (record = supportRecord(recheckAfterMs)));
      return record;
    },
  };
}

function supportRecord(recheckAfterMs: number): StreamingListSupport {
  let refusedAt: number | undefined;
  return {
    get refusedAt() {
      return refusedAt;
    },
    shouldStream: (now) => refusedAt === undefined || now - refusedAt >= recheckAfterMs,
    refused: (now) => {
      refusedAt = now;
    },
    served: () => {
      refusedAt = undefined;
    },
  };
}

/** @internal Throws `InvalidOptionsError` unless `value` is undefined or a `StreamingListSupport`. */
export function checkStreamingListSupport(value: unknown): void {
  const v = value as Partial<StreamingListSupport> | null;
  if (value === undefined) return;
  if (typeof v?.shouldStream !== 'function' || typeof v.refused !== 'function' || typeof v.served !== 'function')
    throw new InvalidOptionsError('streamingListSupport must have shouldStream, refused and served (see createStreamingListMemory)');
}

/** The parameters of a streaming list a server may refuse by name. */
const STREAMING_PARAMETERS = ['sendInitialEvents', 'resourceVersionMatch'];

/**
 * True when `error` is a server's refusal of the streaming list itself: kube-apiserver (1.27 on)
 * with its `WatchList` gate off answers 422 Invalid with a cause on `sendInitialEvents`; a 400 or
 * 422 naming one of its parameters is taken alike. Any other 400 or 422 (a selector the server
 * does not parse, say) is not: a paged list would get the same answer.
 */
export function isStreamingRefusal(error: unknown): boolean {
  if (!(error instanceof KubeApiError) || (error.code !== 422 && error.code !== 400)) return false;
  const causes = error.status?.details?.causes ?? [];
  if (causes.some((c) => c?.field !== undefined && STREAMING_PARAMETERS.includes(c.field))) return true;
  return STREAMING_PARAMETERS.some((p) => error.message.includes(p));
}
