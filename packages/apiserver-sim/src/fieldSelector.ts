/**
 * Field selectors as the API server supports them: `=`, `==` and `!=` on a per-resource set of
 * fields (`metadata.name` and `metadata.namespace` everywhere, more for pods, events, secrets…),
 * with `\,` `\=` `\\` escapes. An unsupported field is an error, as on a real server.
 */
import type { KubeObject } from '@rxinformer/core';
import { FieldSelectorError as SyntaxError, parseFieldSelector as parseFieldSyntax } from '@rxinformer/core/labels';

/** A selector the server refuses. */
export class FieldSelectorError extends Error {
  /** Always `FieldSelectorError`: set as a string, so it survives minification. */
  override readonly name: string = 'FieldSelectorError';
  constructor(message: string) {
    super(message);
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

/**
 * Parses `text` with core's parser (kube-apiserver's grammar: field names are not trimmed, `\`
 * escapes only `\`, `,` and `=`), then checks each field against `allowed`; throws
 * `FieldSelectorError` with kube-apiserver's message for bad syntax or an unsupported field.
 */
export function parseFieldSelector(text: string, allowed: ReadonlySet<string>): FieldRequirement[] {
  let terms: ReturnType<typeof parseFieldSyntax>;
  try {
    terms = parseFieldSyntax(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw new FieldSelectorError(serverMessage(e));
  }
  return terms.map(({ field, operator, value }) => {
    if (!allowed.has(field)) throw new FieldSelectorError(`field label not supported: ${field}`);
    return { field, negate: operator === 'NotEquals', value };
  });
}

/** What kube-apiserver answers for a selector core's parser refuses (an unescaped rune as its code point). */
function serverMessage({ selector, term, problem }: SyntaxError): string {
  switch (problem.type) {
    case 'noOperator':
      return `invalid selector: '${selector}'; can't understand '${term}'`;
    case 'noField':
      return `field label not supported: ${term.slice(0, term.search(/!=|==|=/))}`;
    case 'unescaped':
      return `invalid field selector: unescaped character in value: ${problem.character.codePointAt(0)}`;
    case 'badEscape':
      return `invalid field selector: invalid escape sequence: ${problem.sequence}`;
  }
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
