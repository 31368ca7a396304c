/**
 * Resolves the `--resource` of the live view to a descriptor: one of client-node's typed built-ins
 * by plural name (optionally `.group`) or kind, else `group/version/resource` through discovery.
 */
import {
  builtinResources,
  ResourceNotFoundError,
  ResourceNotWatchableError,
  type Discovery,
  type KubeResource,
} from '@rxinformer/client-node';
import { LiveOptionsError } from './liveOptions.ts';

/** The built-in named `name`: its plural (`pods`), `plural.group` (`deployments.apps`) or lower-case kind (`pod`); core group first. */
export function builtinResource(name: string): KubeResource | undefined {
  const lower = name.toLowerCase();
  return builtinResources.find((r) => r.resource === lower || `${r.resource}.${r.group}` === lower || r.kind.toLowerCase() === lower);
}

/**
 * The descriptor of `spec`: a built-in, or a discovered `group/version/resource` (`v1/pods` for the core group).
 *
 * @example
 * await resolveLiveResource('apps/v1/deployments', factory.discovery);
 *
 * Caveat: an unknown built-in name, an undiscoverable resource and one the server cannot list and
 * watch are `LiveOptionsError`s (exit 2), while network failures of discovery reject as they are.
 */
export async function resolveLiveResource(spec: string, discovery: Discovery): Promise<KubeResource> {
  const parts = spec.split('/');
  if (parts.length === 1) {
    const found = builtinResource(spec);
    if (found) return found;
    const names = builtinResources.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(', ');
    throw new LiveOptionsError(`unknown resource "${spec}": use one of ${names}, or group/version/resource (e.g. example.com/v1/widgets)`);
  }
  const [group, version, resource] = parts.length === 2 ? ['', parts[0], parts[1]] : parts;
  try {
    return await discovery.resolve({ group, version, resource });
  } catch (e) {
    if (e instanceof ResourceNotFoundError || e instanceof ResourceNotWatchableError) throw new LiveOptionsError(e.message, { cause: e });
    throw e;
  }
}
