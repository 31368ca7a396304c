/**
 * Turns the `labelSelector` and `fieldSelector` query parameters into one predicate, refusing
 * bad selectors with 400 BadRequest before anything is read.
 */
import type { KubeObject } from '@rxinformer/core';
import { LabelSelectorError, matchesLabels, parseLabelSelector } from '@rxinformer/core';
import { fieldsForResource, matchesFields, parseFieldSelector } from './fieldSelector.ts';
import type { ResourceInfo } from './resources.ts';
import { errors } from './status.ts';

/** A compiled selector pair. */
export interface ObjectMatcher {
  /** True when both selectors are empty: every object matches. */
  readonly everything: boolean;
  /** Whether `obj` matches both selectors. */
  matches(obj: KubeObject): boolean;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Compiles the selectors of a request; `extraName` adds `metadata.name=<name>` (a watch on one object).
 * Throws a 400 `ApiStatusError` naming the bad selector.
 */
export function compileSelectors(
  res: ResourceInfo,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
  extraName?: string,
): ObjectMatcher {
  let labels: ReturnType<typeof parseLabelSelector> | undefined;
  let fields: ReturnType<typeof parseFieldSelector> | undefined;
  if (labelSelector !== undefined) {
    try {
      const parsed = parseLabelSelector(labelSelector); // blank (spaces, tabs, CR, LF) is everything
      if (parsed.length > 0) labels = parsed;
    } catch (e) {
      // kube-apiserver's words, which the parser's `detail` repeats
      throw errors.badRequest(e instanceof LabelSelectorError ? e.detail : message(e));
    }
  }
  const fieldText = [fieldSelector?.trim(), extraName !== undefined ? `metadata.name=${extraName}` : undefined].filter((s) => s).join(',');
  if (fieldText !== '') {
    try {
      fields = parseFieldSelector(fieldText, fieldsForResource(res.group ? `${res.resource}.${res.group}` : res.resource));
    } catch (e) {
      throw errors.badRequest(fieldSelectorMessage(message(e), res));
    }
  }
  const l = labels;
  const f = fields;
  return {
    everything: l === undefined && f === undefined,
    matches: (obj) => (l === undefined || matchesLabels(l, obj.metadata?.labels ?? {})) && (f === undefined || matchesFields(f, obj)),
  };
}

/**
 * The API server's words for a field selector on a field the kind does not index: `"spec.x" is not
 * a known field selector: only "metadata.name", "metadata.namespace"` (other errors as they are).
 */
function fieldSelectorMessage(text: string, res: ResourceInfo): string {
  const unknown = /^field label not supported: (.*)$/.exec(text);
  if (!unknown) return text;
  const known = fieldsForResource(res.group ? `${res.resource}.${res.group}` : res.resource);
  return `"${unknown[1]}" is not a known field selector: only ${[...known].map((f) => `"${f}"`).join(', ')}`;
}
