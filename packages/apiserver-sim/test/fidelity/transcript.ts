/**
 * A fidelity case is a script run once against each server: the same requests, in the same
 * namespace, each answer recorded (normalized, `normalize.ts`) in a transcript; the two transcripts
 * must be equal. A script may branch on the answers it gets (a resourceVersion to watch from), as
 * long as it does so the same way on both servers.
 */
import type { TestServer } from '@rxinformer/testing/servers';
import { Normalizer } from './normalize.ts';
import { openWatch, type WatchLine, type WatchStream } from './watchStream.ts';

/** An answer of the server (the harness's `TestApi.call`). */
export interface ApiAnswer<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

/** One recorded step. */
export interface Entry {
  step: string;
  [k: string]: unknown;
}

/** Accept headers of the conversions. */
export const ACCEPT = {
  table: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  metadataList: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json',
  metadata: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json',
} as const;

/** What a script is handed: its server, its namespace and the recorder. */
export class Transcript {
  readonly entries: Entry[] = [];
  readonly norm = new Normalizer();
  readonly server: TestServer;
  /** The case's namespace (the same name on both servers). */
  readonly ns: string;
  readonly #watches: WatchStream[] = [];

  constructor(server: TestServer, ns: string) {
    this.server = server;
    this.ns = ns;
  }

  /** The namespaced collection path of a core resource, e.g. `configmaps`. */
  path(resource: string, name?: string): string {
    return `/api/v1/namespaces/${this.ns}/${resource}${name !== undefined ? `/${name}` : ''}`;
  }

  /**
   * Sends a request and records its status and normalized body, the `keep` headers, and the body
   * through `mask` first when given (a known difference left out: see the simulator's README).
   * `raw` sends the path as written, its `.` and `..` segments unresolved.
   */
  async call<T = any>(
    step: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    options: { keep?: string[]; mask?: (body: any) => unknown; raw?: boolean } = {},
  ): Promise<ApiAnswer<T>> {
    const answer = await (options.raw
      ? this.server.api.raw<T>(method, path, body, headers)
      : this.server.api.call<T>(method, path, body, headers));
    const keep = options.keep ?? [];
    const kept = Object.fromEntries(keep.map((h) => [h, answer.headers[h]]));
    const shown = options.mask ? options.mask(structuredClone(answer.body)) : answer.body;
    this.entries.push({ step, status: answer.status, body: this.norm.body(shown), ...(keep.length && { headers: kept }) });
    return answer;
  }

  /** Records a value the script computed (normalized). */
  record(step: string, value: unknown): void {
    this.entries.push({ step, value: this.norm.body(value, false) });
  }

  /** Opens a watch (closed at the end of the case). */
  async watch(path: string, headers?: Record<string, string>): Promise<WatchStream> {
    const w = await openWatch(this.server, path, headers);
    this.#watches.push(w);
    return w;
  }

  /** Records a watch's status and events (normalized), periodic bookmarks left out unless `bookmarks`. */
  recordWatch(step: string, w: WatchStream, options: { bookmarks?: boolean } = {}): void {
    const events = w.events
      .filter((e) => options.bookmarks || e.type !== 'BOOKMARK' || isInitialEventsEnd(e))
      .map((e) => ({ type: e.type, object: this.norm.body(e.object, e.type === 'BOOKMARK') }));
    this.entries.push({ step, status: w.status, ...(w.errorBody !== undefined ? { body: this.norm.body(w.errorBody) } : { events }) });
  }

  /** Closes the case's watches. */
  closeWatches(): void {
    for (const w of this.#watches.splice(0)) w.close();
  }
}

/** A mask: the Status message left out (its words come from Go's parsers: a known difference). */
export const noMessage = (body: any) => ({ ...body, message: typeof body?.message === 'string' ? '<parser words>' : body?.message });

/** The bookmark that ends a watch-list's initial events (of a Table watch: its row's object carries the annotation). */
export function isInitialEventsEnd(e: WatchLine): boolean {
  const metadata = e.object?.kind === 'Table' ? e.object.rows?.[0]?.object?.metadata : e.object?.metadata;
  return e.type === 'BOOKMARK' && metadata?.annotations?.['k8s.io/initial-events-end'] === 'true';
}

/** An event about the object named `name`. */
export const about = (name: string) => (events: WatchLine[]) => events.some((e) => e.object?.metadata?.name === name);

/** A fidelity case: a name and a script. */
export interface FidelityCase {
  name: string;
  script: (t: Transcript) => Promise<void>;
}

/** Runs `c` against both servers at once, each in a fresh namespace of the same name; resolves to the two transcripts. */
export async function runCase(c: FidelityCase, sim: TestServer, real: TestServer, ns: string): Promise<{ sim: Entry[]; real: Entry[] }> {
  const run = async (server: TestServer) => {
    await server.api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const t = new Transcript(server, ns);
    try {
      await c.script(t);
    } finally {
      t.closeWatches();
    }
    return t.entries;
  };
  const [s, r] = await Promise.all([run(sim), run(real)]);
  return { sim: s, real: r };
}
