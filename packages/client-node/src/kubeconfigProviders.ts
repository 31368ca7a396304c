/**
 * Cluster providers over kubeconfigs (multicluster-runtime's kubeconfig and file providers): every
 * context of one KubeConfig, or every kubeconfig file of a folder, watched for changes.
 */
import { existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { asyncScheduler, BehaviorSubject, debounce, defer, Observable, of, Subject, type SchedulerLike } from 'rxjs';
import { InvalidOptionsError } from '@rxinformer/core';
import { ClusterSourceError, type ClusterEvent, type ClusterProvider, type ClusterProviderStatus } from '@rxinformer/core/multicluster';
import { checkDuration, timerAfter } from '@rxinformer/core/time';
import { kubeCluster, type KubeCluster } from './kubeCluster.ts';

/**
 * Every context of `kubeConfig` as a cluster, named after the context. The membership is fixed:
 * the contexts join when the factory starts, then `synced`.
 *
 * @example
 * const kc = new KubeConfig(); kc.loadFromDefault();
 * const fleet = createMultiClusterFactory(kubeconfigContextsProvider(kc));
 *
 * Caveat: a context whose name has a `/` (it goes into keys) is left out, with a
 * `ClusterSourceError` (reason `InvalidClusterName`) on `status$`.
 */
export function kubeconfigContextsProvider(kubeConfig: KubeConfig): ClusterProvider<KubeCluster> {
  if (typeof kubeConfig?.getContexts !== 'function') throw new InvalidOptionsError('kubeconfigContextsProvider needs a KubeConfig');
  const status = new BehaviorSubject<ClusterProviderStatus>({ errors: new Map() });
  return {
    clusters$: defer(() => {
      const errors = new Map<string, Error>();
      const joins: ClusterEvent<KubeCluster>[] = [];
      for (const { name } of kubeConfig.getContexts()) {
        try {
          joins.push({ type: 'join', cluster: kubeCluster(name, kubeConfig, name) });
        } catch (e) {
          errors.set(
            `context ${name}`,
            new ClusterSourceError('InvalidClusterName', `context ${name}`, (e as Error).message, { cause: e }),
          );
        }
      }
      status.next({ errors });
      return of(...joins, { type: 'synced' } as const);
    }),
    status$: status.asObservable(),
  };
}

/** Options of `kubeconfigFolderProvider`. */
export interface KubeconfigFolderOptions {
  /**
   * How long the folder must be quiet before it is read again, in ms (an editor's save is several
   * events; a copy, many): a number >= 0 of any length. Default 200.
   */
  debounceMs?: number;
  /** Where the debounce runs. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/** The endings stripped from a kubeconfig file's name to name its cluster. */
const ENDINGS = /\.(ya?ml|json|kubeconfig|conf)$/;

/**
 * Every kubeconfig file of `dir` as a cluster (its current context), named after the file without
 * its ending (`eu-1.yaml` → `eu-1`); hidden files and folders are skipped. The folder is watched
 * (`fs.watch`, debounced): a file added joins its cluster, changed rejoins it (its informers relist
 * against the new server or credentials), removed leaves it.
 *
 * @example
 * const fleet = createMultiClusterFactory(kubeconfigFolderProvider('/etc/fleet'));
 * fleet.informerFor(pods).addEventHandler({ onAdd: (_p, _i, key) => console.log(key) }); // cluster://eu-1/default/web
 *
 * Caveat: a file that does not parse, or has no current cluster, is a `ClusterSourceError`
 * (reason `InvalidKubeconfig`) on `status$` and its cluster stays as it was (absent, or as last
 * joined) until the file is fixed or removed. A folder that does not exist gives no cluster and a
 * `ClusterSourceError` (reason `FolderUnreadable`); clusters join once it appears only after a restart.
 */
export function kubeconfigFolderProvider(dir: string, options: KubeconfigFolderOptions = {}): ClusterProvider<KubeCluster> {
  if (typeof dir !== 'string' || dir === '') throw new InvalidOptionsError('kubeconfigFolderProvider needs a folder path');
  const debounceMs = checkDuration('kubeconfigFolderProvider: debounceMs', options.debounceMs, 200);
  const scheduler = options.scheduler ?? asyncScheduler;
  const status = new BehaviorSubject<ClusterProviderStatus>({ errors: new Map() });
  const clusters$ = new Observable<ClusterEvent<KubeCluster>>((subscriber) => {
    const joined = new Map<string, string>(); // cluster name → the file text it joined with
    const rescan = (): void => {
      const { files, errors } = readFolder(dir);
      for (const [name, { text, path }] of files) {
        if (joined.get(name) === text) continue;
        try {
          subscriber.next({ type: 'join', cluster: kubeCluster(name, parseKubeconfig(text, path)) });
          joined.set(name, text);
        } catch (e) {
          errors.set(
            path,
            e instanceof ClusterSourceError ? e : new ClusterSourceError('InvalidKubeconfig', path, (e as Error).message, { cause: e }),
          );
        }
      }
      for (const name of [...joined.keys()])
        if (!files.has(name)) {
          joined.delete(name);
          subscriber.next({ type: 'leave', name });
        }
      status.next({ errors });
    };
    rescan();
    subscriber.next({ type: 'synced' });
    const changed = new Subject<void>();
    const rescans = changed.pipe(debounce(() => timerAfter(debounceMs, scheduler))).subscribe(rescan);
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(dir, () => changed.next());
      watcher.on('error', () => changed.next());
    } catch {
      // No folder to watch: readFolder reported it.
    }
    return () => {
      watcher?.close();
      rescans.unsubscribe();
    };
  });
  return { clusters$, status$: status.asObservable() };
}

/** The kubeconfig files of `dir` by cluster name, and what could not be read. */
function readFolder(dir: string): { files: Map<string, { text: string; path: string }>; errors: Map<string, Error> } {
  const files = new Map<string, { text: string; path: string }>();
  const errors = new Map<string, Error>();
  let names: string[];
  try {
    names = existsSync(dir) ? readdirSync(dir) : [];
    if (!existsSync(dir)) errors.set(dir, new ClusterSourceError('FolderUnreadable', dir, 'the folder does not exist'));
  } catch (e) {
    errors.set(dir, new ClusterSourceError('FolderUnreadable', dir, (e as Error).message, { cause: e }));
    return { files, errors };
  }
  for (const file of names.sort()) {
    if (file.startsWith('.')) continue;
    const path = join(dir, file);
    try {
      if (!statSync(path).isFile()) continue;
      const name = file.replace(ENDINGS, '');
      if (name.includes('/') || name === '') continue;
      files.set(name, { text: readFileSync(path, 'utf8'), path });
    } catch {
      // Removed between the listing and the read: the next event rescans.
    }
  }
  return { files, errors };
}

/** A KubeConfig from a kubeconfig's text; `ClusterSourceError` when it does not parse or names no server. */
export function parseKubeconfig(text: string, source: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (e) {
    throw new ClusterSourceError('InvalidKubeconfig', source, `not a kubeconfig: ${(e as Error).message}`, { cause: e });
  }
  if (!kc.getCurrentCluster()?.server)
    throw new ClusterSourceError('InvalidKubeconfig', source, 'the kubeconfig has no current context with a cluster server');
  return kc;
}
