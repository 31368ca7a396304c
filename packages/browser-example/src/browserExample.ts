/**
 * The whole example in one call: the simulator (optionally with seeded pods and a churn), the built
 * page, and the page server proxying to the simulator. `npm run example:browser` and the browser
 * test both start it this way.
 */
import { createLoadGenerator, objectStoreTarget, startApiServer, type ApiServer, type ChurnHandle } from '@rxinformer/apiserver-sim';
import { buildPage, type PageBundle } from './bundle.ts';
import { startPageServer, type StaticSite, type TlsCredentials } from './pageServer.ts';

/** Options of `startBrowserExample`. */
export interface BrowserExampleOptions {
  /** Port of the page server. Default 0 (a free port). The simulator always takes a free port. */
  port?: number;
  /** Seed of the simulator and of the load generator. Default 1. */
  seed?: number;
  /** Namespaces to create and spread the pods over. Default `['default', 'web', 'batch']`. */
  namespaces?: string[];
  /** Pods created before the page server starts. Default 0. */
  pods?: number;
  /** Churn (creates, updates, deletes, recreates) per second after that; 0 = none. Default 0. */
  ratePerSecond?: number;
  /** Minify the page's script. Default false. */
  minify?: boolean;
  /**
   * What the page server serves besides the API: a built site's directory (`{ root }`, e.g. an
   * Angular build) or a page bundle. Default: this package's page, built with esbuild.
   */
  page?: PageBundle | StaticSite;
  /**
   * Serve the page over HTTP/2 and TLS with these credentials (`devCertificate()`,
   * `loadCertificate()`): any number of informers per tab. Default: none, plain HTTP/1.1.
   */
  tls?: TlsCredentials;
}

/** A running example. */
export interface BrowserExample {
  /** The page's URL (the page server): `https:` with `tls`, else `http:`. */
  readonly url: string;
  /** The simulator behind the proxy: create, update and delete objects through `sim.storage`. */
  readonly sim: ApiServer;
  /** The churn, when `ratePerSecond` > 0. */
  readonly churn: ChurnHandle | undefined;
  /** Stops the churn, the page server and the simulator; every socket and timer goes. */
  close(): Promise<void>;
}

/**
 * Starts the example. If any part fails to start, the parts already started are closed.
 *
 * @example
 * const example = await startBrowserExample({ pods: 20, ratePerSecond: 2 });
 * console.log(`open ${example.url}`);
 * await example.close();
 *
 * Caveat: the churn's writes go straight into the simulator's store; the page sees them only
 * through the proxy, like any other client.
 */
export async function startBrowserExample(options: BrowserExampleOptions = {}): Promise<BrowserExample> {
  const seed = options.seed ?? 1;
  const namespaces = options.namespaces ?? ['default', 'web', 'batch'];
  const page = options.page ?? (await buildPage({ minify: options.minify }));
  // The control endpoints are for the curl that main.ts suggests; the page server never forwards them.
  const sim = await startApiServer({ port: 0, seed, controlEndpoints: true });
  let churn: ChurnHandle | undefined;
  try {
    for (const ns of namespaces) {
      if (!sim.storage.find('namespaces', undefined, ns)) sim.storage.create('namespaces', { metadata: { name: ns } });
    }
    const load = createLoadGenerator({ target: objectStoreTarget(sim.storage), namespaces, seed });
    load.seed(options.pods ?? 0);
    if ((options.ratePerSecond ?? 0) > 0) churn = load.churn({ ratePerSecond: options.ratePerSecond! });
    const server = await startPageServer({ upstream: sim.url, page, port: options.port ?? 0, ...(options.tls && { tls: options.tls }) });
    return {
      url: server.url,
      sim,
      churn,
      close: async () => {
        churn?.stop();
        await server.close();
        await sim.close();
      },
    };
  } catch (e) {
    churn?.stop();
    await sim.close();
    throw e;
  }
}
