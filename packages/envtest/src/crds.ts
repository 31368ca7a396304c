/**
 * Installing CustomResourceDefinitions and waiting until they are served, as controller-runtime's
 * envtest does: created (or, when there, replaced), then polled until the CRD's `Established`
 * condition is True and discovery lists its resource in every served version; removed again,
 * waiting until they are gone.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { readCRDs, type CustomResourceDefinition } from './crdFiles.ts';
import { CRDInstallError, CRDNotServedError, EventuallyTimeoutError, InvalidOptionsError } from './errors.ts';
import { eventually } from './eventually.ts';
import { kubeConfigCall, type Answer, type ServerCall } from './https.ts';

/** Which CRDs to install, and how long they may take to be served. */
export interface CRDInstallOptions {
  /** Files and folders of CRDs, YAML (multi-document) or JSON; see `readCRDs`. Default none. */
  paths?: readonly string[];
  /** CRDs as objects (apiextensions.k8s.io/v1). Default none. */
  objects?: readonly CustomResourceDefinition[];
  /** How long the CRDs may take to be stored and served, in ms. Default 30 000. */
  timeoutMs?: number;
}

/** A CRD that was installed. */
export interface InstalledCRD {
  /** Its name, `<plural>.<group>`. */
  readonly name: string;
  /** True when it was created; false when one of its name was there and was replaced. */
  readonly created: boolean;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const POLL_MS = 100;

/**
 * Installs the CRDs of `options` on the server of `kubeConfig` and resolves once every one is
 * served. Throws `CRDFileError` (a file), `CRDInstallError` (`CRDRejected`: the server refused
 * one) or `CRDNotServedError` (naming the CRD and what was missing after `timeoutMs`).
 *
 * @example
 * await installCRDs(kubeConfig, { paths: ['config/crd/bases'] });
 *
 * Caveat: a CRD already there is replaced by the file's (as controller-runtime's envtest does),
 * and one being deleted is waited for, then created.
 */
export async function installCRDs(kubeConfig: KubeConfig, options: CRDInstallOptions): Promise<InstalledCRD[]> {
  return installWith(kubeConfigCall(kubeConfig), crdsOf(options), installTimeout(options));
}

/**
 * Deletes the CRDs named (their custom resources go with them) and resolves once they are gone;
 * a CRD not there is no error. Throws `CRDInstallError` (`CRDNotRemoved`) when one stays.
 *
 * @example
 * await uninstallCRDs(kubeConfig, ['widgets.example.com']);
 */
export async function uninstallCRDs(kubeConfig: KubeConfig, names: readonly string[], options: { timeoutMs?: number } = {}): Promise<void> {
  return uninstallWith(kubeConfigCall(kubeConfig), names, installTimeout(options));
}

/** The CRDs `options` names: its files read and its objects, checked before anything is sent. */
export function crdsOf(options: CRDInstallOptions): CustomResourceDefinition[] {
  installTimeout(options);
  return [...readCRDs(options.paths ?? []), ...(options.objects ?? [])];
}

/** `options.timeoutMs`, checked, or the default. */
export function installTimeout(options: { timeoutMs?: number }): number {
  const ms = options.timeoutMs ?? 30_000;
  if (!(Number.isFinite(ms) && ms > 0 && ms <= 2 ** 31 - 1))
    throw new InvalidOptionsError(`timeoutMs must be in (0, 2147483647], not ${ms}`);
  return ms;
}

/**
 * Installs `crds` through `call` and waits until all are served, within `timeoutMs`; the first
 * failure stops the others. `onStored` hears of each CRD once stored, so a caller knows what to
 * remove even when another failed.
 */
export async function installWith(
  call: ServerCall,
  crds: readonly CustomResourceDefinition[],
  timeoutMs: number,
  onStored: (crd: InstalledCRD) => void = () => {},
): Promise<InstalledCRD[]> {
  const failed = new AbortController();
  const deadline = performance.now() + timeoutMs;
  return Promise.all(
    crds.map(async (crd) => {
      try {
        const stored = await store(call, crd, timeoutMs, failed.signal);
        onStored(stored);
        await waitServed(call, crd, Math.max(1, Math.round(deadline - performance.now())), timeoutMs, failed.signal);
        return stored;
      } catch (error) {
        failed.abort(error);
        throw error;
      }
    }),
  );
}

/** Deletes `names` through `call` and waits until all are gone. */
export async function uninstallWith(call: ServerCall, names: readonly string[], timeoutMs: number): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const answer = await call('DELETE', `${CRDS}/${name}`);
      if (answer.status !== 404 && !ok(answer)) throw refused('CRDNotRemoved', name, 'DELETE', answer);
      await eventually(async () => (await call('GET', `${CRDS}/${name}`)).status === 404, { timeoutMs, intervalMs: POLL_MS }).catch(
        (error) => {
          throw new CRDInstallError('CRDNotRemoved', name, `still there ${timeoutMs} ms after its deletion`, undefined, { cause: error });
        },
      );
    }),
  );
}

/** Creates `crd`, or replaces the one of its name (after waiting out one being deleted). */
async function store(call: ServerCall, crd: CustomResourceDefinition, timeoutMs: number, signal: AbortSignal): Promise<InstalledCRD> {
  const name = crd.metadata.name;
  const body = { ...crd, metadata: { ...crd.metadata, resourceVersion: undefined } };
  // An attempt ends in the CRD stored, a refusal (both end the polling), or false: try again, `why`.
  let why = 'no answer';
  const again = (reason: string) => ((why = reason), false as const);
  const attempt = async (): Promise<InstalledCRD | CRDInstallError | false> => {
    const created = await call('POST', CRDS, body);
    if (ok(created)) return { name, created: true };
    if (created.status !== 409) return refused('CRDRejected', name, 'POST', created);
    const current = await call('GET', `${CRDS}/${name}`);
    if (current.status === 404) return again('deleted between the create and the read');
    if (!ok(current)) return refused('CRDRejected', name, 'GET', current);
    const meta = (JSON.parse(current.body) as { metadata: { resourceVersion: string; deletionTimestamp?: string } }).metadata;
    if (meta.deletionTimestamp) return again('the CRD of this name is being deleted');
    const replaced = await call('PUT', `${CRDS}/${name}`, {
      ...body,
      metadata: { ...body.metadata, resourceVersion: meta.resourceVersion },
    });
    if (ok(replaced)) return { name, created: false };
    return replaced.status === 409 ? again('changed by another writer at each replace') : refused('CRDRejected', name, 'PUT', replaced);
  };
  const heard = () =>
    attempt().catch((error: Error) => {
      why = error.message; // no answer: try again
      throw error;
    });
  const outcome = await eventually(heard, { timeoutMs, intervalMs: POLL_MS, signal }).catch((error: unknown) => {
    if (!(error instanceof EventuallyTimeoutError)) throw error;
    throw new CRDNotServedError(name, timeoutMs, `not stored: ${why}`, { cause: error });
  });
  if (outcome instanceof CRDInstallError) throw outcome;
  return outcome;
}

/** Polls until `crd` is Established and discovery lists its resource in each served version: `leftMs` more, of `timeoutMs`. */
async function waitServed(
  call: ServerCall,
  crd: CustomResourceDefinition,
  leftMs: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  const { group, names } = crd.spec;
  const served = crd.spec.versions.filter((v) => v.served).map((v) => v.name);
  await eventually(
    async () => {
      const answer = await call('GET', `${CRDS}/${crd.metadata.name}`);
      if (!ok(answer)) throw new Error(`GET answered ${answer.status}`);
      const conditions = (JSON.parse(answer.body) as { status?: { conditions?: Condition[] } }).status?.conditions ?? [];
      const established = conditions.find((c) => c.type === 'Established');
      if (established?.status !== 'True') throw new Error(notEstablished(established, conditions));
      for (const version of served) {
        const discovery = await call('GET', `/apis/${group}/${version}`);
        const listed =
          ok(discovery) &&
          (JSON.parse(discovery.body) as { resources?: { name: string }[] }).resources?.some((r) => r.name === names.plural);
        if (!listed) throw new Error(`discovery of ${group}/${version} does not list ${names.plural} yet`);
      }
    },
    { timeoutMs: leftMs, intervalMs: POLL_MS, signal },
  ).catch((error: unknown) => {
    if (!(error instanceof EventuallyTimeoutError)) throw error;
    const last = error.cause instanceof Error ? error.cause.message : 'no answer yet';
    throw new CRDNotServedError(crd.metadata.name, timeoutMs, last, { cause: error });
  });
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** Why a CRD is not Established: that condition, or a NamesAccepted that is not True (a name conflict). */
function notEstablished(established: Condition | undefined, conditions: Condition[]): string {
  const names = conditions.find((c) => c.type === 'NamesAccepted');
  const said = (c: Condition) => `${c.type} is ${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`;
  if (names && names.status !== 'True') return `not Established: ${said(names)}`;
  return established ? `not Established: ${said(established)}` : 'not Established yet';
}

const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300;

function refused(reason: 'CRDRejected' | 'CRDNotRemoved', name: string, method: string, answer: Answer): CRDInstallError {
  let message = answer.body.slice(0, 500);
  try {
    message = (JSON.parse(answer.body) as { message?: string }).message ?? message;
  } catch {
    // not a Status: the body as it is
  }
  return new CRDInstallError(reason, name, `${method} answered ${answer.status}: ${message}`, answer.status);
}
