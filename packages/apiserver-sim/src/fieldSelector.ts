/**
 * Field selectors as the API server supports them: `=`, `==` and `!=` on a per-resource set of
 * fields (`metadata.name` and `metadata.namespace` everywhere, more for pods, events, secrets…),
 * with `\,` `\=` `\\` escapes. An unsupported field is an error, as on a real server.
 */
import type { KubeObject } from '@rxinformer/core';

/** A selector the server refuses. */
export class FieldSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorError';
  }
}

/** One requirement. */
export interface FieldRequirement {
  field: string;
  negate: boolean;
  value: string;
}

const COMMON = ['metadata.name', 'metadata.namespace'];
const EXTRA: Record<string, string[]> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  secrets: ['type'],
  namespaces: ['status.phase'],
  nodes: ['spec.unschedulable'],
  'replicasets.apps': ['status.replicas'],
  'statefulsets.apps': ['status.replicas'],
  'jobs.batch': ['status.successful'],
};

/** The fields `resource` (plural, `.group` for non-core) can be selected on. */
export function fieldsForResource(resource: string): ReadonlySet<string> {
  return new Set([...COMMON, ...(EXTRA[resource] ?? [])]);
}

function splitUnescaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      cur += text[i] + text[i + 1];
      i++;
      continue;
    }
    if (text[i] === sep) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += text[i];
  }
  out.push(cur);
  return out;
}

const unescape = (v: string): string => v.replace(/\\(.)/g, '$1');

/** Parses `text`; throws `FieldSelectorError` for bad syntax or an unsupported field. */
export function parseFieldSelector(text: string, allowed: ReadonlySet<string>): FieldRequirement[] {
  return splitUnescaped(text, ',')
    .filter((p) => p.trim() !== '')
    .map((part) => {
      const m = /^\s*([A-Za-z0-9_.-]+)\s*(==|!=|=)(.*)$/s.exec(part);
      if (!m) throw new FieldSelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
      if (!allowed.has(m[1])) throw new FieldSelectorError(`field label not supported: ${m[1]}`);
      return { field: m[1], negate: m[2] === '!=', value: unescape(m[3].trim()) };
    });
}

/** The string value of a dotted field path of `obj` (`""` when absent), as the server compares it. */
export function fieldValue(obj: KubeObject, path: string): string {
  let v: unknown = obj;
  for (const k of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[k];
  if (path === 'source' && typeof v === 'object' && v !== null) v = (v as { component?: string }).component;
  return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean);
}

/** Does `obj` satisfy every requirement? */
export function matchesFields(selector: readonly FieldRequirement[], obj: KubeObject): boolean {
  return selector.every((r) => (fieldValue(obj, r.field) === r.value) !== r.negate);
}
