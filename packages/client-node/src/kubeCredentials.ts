/**
 * What each request of a transport sends as the kubeconfig's user: the context pinned when the
 * transport is made (checked then: a user the file lacks, inline TLS data that is not PEM), its
 * headers and TLS material read again for every request, an exec plugin run by
 * `execCredentials` (bounded) rather than by client-node.
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { InvalidOptionsError } from '@rxinformer/core';
import { CredentialError } from './errors.ts';
import { execCredentials, type ExecCredentialOptions, type ExecCredentials } from './execCredential.ts';
import { tlsMaterialProblem } from './tlsMaterial.ts';

/** What one request sends as the pinned user: its headers, its TLS material, and the read's order. */
export interface Credentials {
  headers: Record<string, string>;
  opts: RequestOptions;
  /** Credential reads are numbered in order (see `forMaterial`). */
  readAt: number;
}

/** The pinned user of a transport. */
export interface PinnedUser {
  /** A view of the KubeConfig fixed on the context current when it was pinned (see `pinUser`). */
  readonly kc: KubeConfig;
  /** The user's name (`''` for none). */
  readonly name: string;
  /** The headers and TLS material of one request; an abort ends the wait at once. */
  read(signal: AbortSignal): Promise<Credentials>;
  /** The server answered 401: an exec plugin's cached credential is dropped, to be run again. */
  refused(): void;
  /** Kills an exec plugin still running. */
  close(): void;
}

/**
 * The user of `kc`'s current context, pinned: `setCurrentContext` or a reload of `kc` no longer
 * changes whom it authenticates as. It inherits `kc`'s authenticators (OIDC caches, custom ones),
 * but an `exec` plugin is run here, with `exec`'s options. Throws `InvalidOptionsError` for a
 * context without a cluster or naming a user the kubeconfig lacks (client-node would go on
 * anonymous and without the cluster's CA), and, when `checkTls` (HTTPS), for inline TLS data that
 * is not PEM.
 */
export function pinUser(kc: KubeConfig, options: { userAgent: string; checkTls: boolean; exec?: ExecCredentialOptions }): PinnedUser {
  const context = kc.getContextObject(kc.getCurrentContext());
  const cluster = kc.getCurrentCluster();
  if (!context || !cluster) throw new InvalidOptionsError('the KubeConfig has no current cluster');
  const user = kc.getCurrentUser();
  if (!user && context.user)
    throw new InvalidOptionsError(`the context "${context.name}" names user "${context.user}", which the kubeconfig does not have`);
  const exec = user?.exec ? execCredentials(user.exec as Parameters<typeof execCredentials>[0], options.exec) : undefined;
  const own: User | null = user && exec ? { ...user, exec: undefined } : user; // client-node must not run it too
  const pinned = Object.create(kc) as KubeConfig;
  pinned.loadFromOptions({ clusters: [cluster], users: own ? [own] : [], contexts: [context], currentContext: context.name });
  if (options.checkTls) checkInlineTls(pinned);
  const name = user?.name ?? '';
  let reads = 0;
  return {
    kc: pinned,
    name,
    async read(signal) {
      const readAt = ++reads;
      const opts: RequestOptions = {};
      const read = applyUser(pinned, opts, exec).catch((e: unknown) => {
        throw new CredentialError(name, { cause: e });
      });
      await untilAborted(read, signal);
      const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': options.userAgent };
      for (const [header, value] of Object.entries(opts.headers ?? {})) {
        if (value !== undefined) headers[header] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
      return { headers, opts, readAt };
    },
    refused: () => exec?.invalidate(),
    close: () => exec?.close(),
  };
}

/** The user's TLS options and headers into `opts`, an exec plugin's credential included (a kubeconfig `token` wins, as in client-node). */
async function applyUser(pinned: KubeConfig, opts: RequestOptions, exec: ExecCredentials | undefined): Promise<void> {
  await pinned.applyToHTTPSOptions(opts);
  if (!exec) return;
  const status = await exec.read();
  if (status.clientCertificateData && status.clientKeyData) {
    opts.cert = status.clientCertificateData;
    opts.key = status.clientKeyData;
  }
  const headers = (opts.headers ??= {}) as Record<string, string | undefined>;
  if (status.token && headers.Authorization === undefined) headers.Authorization = `Bearer ${status.token}`;
}

/** Throws `InvalidOptionsError` when the kubeconfig's inline TLS data (base64 in the file) does not parse. */
function checkInlineTls(pinned: KubeConfig): void {
  const cluster = pinned.getCurrentCluster();
  const user = pinned.getCurrentUser();
  const data = (base64: string | undefined) => (base64 ? Buffer.from(base64, 'base64') : undefined);
  const problem = tlsMaterialProblem({
    ...(cluster?.caData && { ca: data(cluster.caData) }),
    ...(user?.certData && { cert: data(user.certData) }),
    ...(user?.keyData && { key: data(user.keyData) }),
  });
  if (problem !== undefined) throw new InvalidOptionsError(`${problem} (is it the base64 of a PEM file?)`);
}

/** `p`, or a rejection with the abort reason as soon as `signal` aborts (`p` then runs on, unobserved). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
