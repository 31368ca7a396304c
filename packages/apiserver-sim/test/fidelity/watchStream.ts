/**
 * A watch read line by line from the simulator or kube-apiserver, straight to the server (its URL,
 * token and CA), for the fidelity cases: every event kept in arrival order, waits by predicate with
 * a deadline (never by time alone).
 */
import type { TestServer } from '@rxinformer/testing/servers';
import { Agent, request } from 'undici';

/** One line of a watch as it came. */
export interface WatchLine {
  type: string;
  object: any;
}

/** An open watch. */
export interface WatchStream {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The answer's body when it was not a stream (an error Status). */
  readonly errorBody?: unknown;
  /** Every event so far. */
  readonly events: WatchLine[];
  /** True once the server ended the stream. */
  readonly ended: boolean;
  /** Resolves once `done(events)` holds or the stream ended; rejects after `ms` with what came. */
  until(done: (events: WatchLine[]) => boolean, ms?: number): Promise<WatchLine[]>;
  /** Aborts the stream. */
  close(): void;
}

/** Where a server is, for clients outside the harness's API. */
export interface ServerAccess {
  url: string;
  token?: string;
  ca?: string;
}

/** The direct address and credentials of `server`. */
export function accessOf(server: TestServer): ServerAccess {
  if (server.env) return { url: server.env.url, token: server.env.token, ca: server.env.ca };
  return { url: server.sim!.url, ...(server.sim!.faults.token !== undefined && { token: server.sim!.faults.token }) };
}

const agents = new Map<string, Agent>();
const agentFor = (ca: string | undefined): Agent => {
  const key = ca ?? '';
  let agent = agents.get(key);
  if (!agent) agents.set(key, (agent = new Agent({ connect: ca ? { ca } : {} })));
  return agent;
};

/** Closes the agents the watches used (after every stream is closed). */
export async function closeWatchAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}

/** Opens a watch of `path` (its query included) on `server`, with extra request headers. */
export async function openWatch(server: TestServer, path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  const access = accessOf(server);
  const ac = new AbortController();
  const res = await request(`${access.url}${path}`, {
    dispatcher: agentFor(access.ca),
    signal: ac.signal,
    headers: { accept: 'application/json', ...(access.token !== undefined && { authorization: `Bearer ${access.token}` }), ...headers },
  });
  const events: WatchLine[] = [];
  const wakers = new Set<() => void>();
  const wake = () => wakers.forEach((w) => w());
  const state = { ended: false, errorBody: undefined as unknown };
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    state.ended = true;
    try {
      state.errorBody = JSON.parse(text);
    } catch {
      state.errorBody = text;
    }
  } else void readLines(res.body, events, wake).finally(() => ((state.ended = true), wake()));
  return {
    status: res.statusCode,
    events,
    get ended() {
      return state.ended;
    },
    get errorBody() {
      return state.errorBody;
    },
    until: (done, ms = 10_000) =>
      new Promise<WatchLine[]>((resolve, reject) => {
        const check = () => {
          if (done(events) || state.ended) {
            finish();
            resolve(events);
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`watch ${path}: condition not met in ${ms} ms; events: ${JSON.stringify(events.map(brief))}`));
        }, ms);
        const finish = () => {
          clearTimeout(timer);
          wakers.delete(check);
        };
        wakers.add(check);
        check();
      }),
    close: () => ac.abort(),
  };
}

const brief = (e: WatchLine) =>
  `${e.type} ${e.object?.metadata?.name ?? e.object?.reason ?? ''}@${e.object?.metadata?.resourceVersion ?? ''}`;

async function readLines(body: AsyncIterable<Buffer>, events: WatchLine[], wake: () => void): Promise<void> {
  let buf = '';
  try {
    for await (const chunk of body) {
      buf += chunk.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line !== '') events.push(JSON.parse(line) as WatchLine);
      }
      wake();
    }
  } catch {
    // aborted by close(), or the connection broke: the events so far stand
  }
}
