/**
 * Field paths, the language of projections: which fields of an object a list view keeps.
 *
 * A path is a key, then any number of `.key` (a field of an object) and `[*]` (every element of an
 * array): `status.phase`, `status.containerStatuses[*].restartCount`, `spec.containers[*]`. A key
 * is any run of characters but `.`, `[`, `]`, `\` and whitespace; a backslash lets a key hold the
 * first four (`metadata.labels.app\.kubernetes\.io/name`, as kubectl's JSONPath writes it). There
 * are no indexes (`[0]`), wildcards over an object's keys, filters or quoting: a view keeps whole
 * fields or the same field of every element.
 */
import { describeValue, RxInformerError } from '../errors.ts';

/** One step of a field path: a key of an object, or every element of an array. */
export type FieldPathStep =
  | {
      /** A key of an object, unescaped. */
      readonly key: string;
    }
  | {
      /** `[*]`: every element of an array. */
      readonly each: true;
    };

/** A field path, parsed: its steps, and its text written the one canonical way. */
export interface FieldPath {
  /** The steps from the object's root; the first is a key. */
  readonly steps: readonly FieldPathStep[];
  /** The path written back: `formatFieldPath(steps)`, equal for equal paths. */
  readonly text: string;
}

/**
 * A field path that cannot be parsed. `reason` is `InvalidFieldPath`; `path` is the text given,
 * `position` the index of the first character that is wrong (its length when the path ends too
 * early; -1 when it is not a string at all); `index` which path of a projection it is.
 *
 * @example
 * try { project(['status.phase', 'spec.containers[0].image']); } catch (e) {
 *   if (e instanceof FieldPathError) console.log(e.index, e.position, e.detail); // 1 15 'only "[*]" …'
 * }
 */
export class FieldPathError extends RxInformerError {
  /** Always `FieldPathError`: set as a string, so it survives minification. */
  override readonly name: string = 'FieldPathError';
  /** The path as given. */
  readonly path: unknown;
  /** Where the path goes wrong (an index into it), or -1 when it is not a string. */
  readonly position: number;
  /** What is wrong there. */
  readonly detail: string;
  /** Which of a projection's paths it is; undefined for a path parsed alone. */
  readonly index?: number;

  constructor(path: unknown, position: number, detail: string, index?: number) {
    const where = typeof path === 'string' ? `field path "${path}"${position >= 0 ? ` at ${position}` : ''}` : 'field path';
    super('InvalidFieldPath', `${where}${index !== undefined ? ` (path ${index} of the projection)` : ''}: ${detail}`);
    this.path = path;
    this.position = position;
    this.detail = detail;
    if (index !== undefined) this.index = index;
  }
}

/** The characters a backslash may escape, and that a key may not hold unescaped. */
const SPECIAL = new Set(['.', '[', ']', '\\']);
const WHITESPACE = /\s/;

/**
 * Parses a field path; throws `FieldPathError` (with the position of the fault) when it is not one.
 *
 * @example
 * parseFieldPath('status.containerStatuses[*].restartCount').steps;
 * // [{ key: 'status' }, { key: 'containerStatuses' }, { each: true }, { key: 'restartCount' }]
 * parseFieldPath('metadata.labels.app\\.kubernetes\\.io/name').steps[2]; // { key: 'app.kubernetes.io/name' }
 *
 * Caveat: a key holding whitespace cannot be written (no Kubernetes field, label, annotation or
 * data key holds any); a path with whitespace is refused rather than read as such a key.
 */
export function parseFieldPath(text: unknown): FieldPath {
  if (typeof text !== 'string') throw new FieldPathError(text, -1, `must be a string, got ${describeValue(text)}`);
  if (text === '') throw new FieldPathError(text, 0, 'is empty');
  const steps: FieldPathStep[] = [];
  let i = 0;
  for (;;) {
    // A key: at the start, and after every `.`.
    const start = i;
    let key = '';
    while (i < text.length && text[i] !== '.' && text[i] !== '[') {
      const c = text[i];
      if (c === ']') throw new FieldPathError(text, i, 'an unescaped "]" (a key holding one writes "\\]")');
      if (WHITESPACE.test(c)) throw new FieldPathError(text, i, 'whitespace is not allowed in a field path');
      if (c === '\\') {
        const next = text[i + 1];
        if (next === undefined) throw new FieldPathError(text, i, 'a "\\" at the end escapes nothing');
        if (!SPECIAL.has(next)) throw new FieldPathError(text, i, `"\\" escapes only . [ ] and \\, not "${next}"`);
        key += next;
        i += 2;
      } else {
        key += c;
        i++;
      }
    }
    if (i === start) throw new FieldPathError(text, i, start === 0 ? 'a path starts with a key' : 'an empty key');
    steps.push({ key });
    // Any number of `[*]` after a key.
    while (text[i] === '[') {
      if (text.slice(i, i + 3) !== '[*]')
        throw new FieldPathError(text, i, 'only "[*]" (every element of an array) may follow a key: no indexes or filters');
      steps.push({ each: true });
      i += 3;
    }
    if (i === text.length) return Object.freeze({ steps: Object.freeze(steps), text: formatFieldPath(steps) });
    if (text[i] !== '.') throw new FieldPathError(text, i, 'expected "." or "[*]" after "[*]"');
    i++;
    if (i === text.length) throw new FieldPathError(text, i, 'a path does not end with "."');
  }
}

/**
 * The text of a field path's steps, keys escaped: what `parseFieldPath` reads back to the same steps.
 *
 * @example
 * formatFieldPath([{ key: 'metadata' }, { key: 'labels' }, { key: 'app.kubernetes.io/name' }]);
 * // 'metadata.labels.app\\.kubernetes\\.io/name'
 */
export function formatFieldPath(steps: readonly FieldPathStep[]): string {
  let text = '';
  for (const step of steps) {
    if ('each' in step) text += '[*]';
    else text += `${text === '' ? '' : '.'}${step.key.replace(/[.[\]\\]/g, (c) => `\\${c}`)}`;
  }
  return text;
}
