/**
 * Kubernetes field selectors (`metadata.name=web,status.phase!=Running`): the syntax the API server
 * accepts, checked before a request is sent, so that a typo fails at the call that made it instead
 * of as a 400 the reflector retries forever. Which fields a resource supports is the server's
 * business: only the syntax is checked here. Also the check of a scope's two selectors.
 */
import { InvalidOptionsError, RxInformerError } from '../errors.ts';
import { parseLabelSelector } from './labelSelector.ts';

/** The operator of one field requirement: `=` and `==` are both `Equals`. */
export type FieldOperator = 'Equals' | 'NotEquals';

/** One requirement of a field selector: a field compared with one value. */
export interface FieldRequirement {
  /** The field path, e.g. `metadata.name`. */
  readonly field: string;
  /** How the field is compared. */
  readonly operator: FieldOperator;
  /** The value, unescaped (`\,`, `\=` and `\\` in the selector stand for `,`, `=` and `\`). */
  readonly value: string;
}

/**
 * What is wrong with a field selector's term: no operator, no field before it, an unescaped `=` or
 * `,` in its value (`character`), or an escape other than `\\`, `\,` and `\=` (`sequence`); `value`
 * is the value as written.
 */
export type FieldSelectorProblem =
  | { type: 'noOperator' }
  | { type: 'noField' }
  | { type: 'unescaped'; character: string; value: string }
  | { type: 'badEscape'; sequence: string; value: string };

/** A field selector that is not valid: `position` is the 0-based offset of the offending term. */
export class FieldSelectorError extends RxInformerError {
  /** Always `FieldSelectorError`: set as a string, so it survives minification. */
  override readonly name: string = 'FieldSelectorError';
  /** The selector as given. */
  readonly selector: string;
  /** Offset of the offending term in `selector`. */
  readonly position: number;
  /** The offending term, as written. */
  readonly term: string;
  /** What is wrong with it. */
  readonly problem: FieldSelectorProblem;

  constructor(selector: string, position: number, term: string, problem: FieldSelectorProblem) {
    super('InvalidSelector', `invalid field selector "${selector.slice(0, 200)}": ${describe(term, problem)} at position ${position}`);
    this.selector = selector;
    this.position = position;
    this.term = term;
    this.problem = problem;
  }
}

/** The problem in words. */
function describe(term: string, problem: FieldSelectorProblem): string {
  switch (problem.type) {
    case 'noOperator':
      return `"${term}" has no operator (=, == or !=)`;
    case 'noField':
      return `"${term}" names no field`;
    case 'unescaped':
      return `unescaped "${problem.character}" in value "${problem.value}" (write "\\${problem.character}")`;
    case 'badEscape':
      return `invalid escape sequence "${problem.sequence}" in value "${problem.value}"`;
  }
}

/**
 * Parses a field selector as the API server does: terms separated by unescaped commas (empty
 * terms are skipped), each `field=value`, `field==value` or `field!=value`, split at the first
 * unescaped operator; in a value, `\` escapes only `\`, `,` and `=`, and an unescaped `=` is an
 * error. The empty string selects everything. Throws `FieldSelectorError`.
 *
 * @example
 * parseFieldSelector('metadata.name=web,status.phase!=Running');
 * // [{ field: 'metadata.name', operator: 'Equals', value: 'web' }, { field: 'status.phase', operator: 'NotEquals', value: 'Running' }]
 */
export function parseFieldSelector(text: string): readonly FieldRequirement[] {
  if (typeof text !== 'string') throw new InvalidOptionsError('a field selector must be a string');
  const out: FieldRequirement[] = [];
  for (const { term, pos } of splitTerms(text)) {
    if (term === '') continue;
    const op = findOperator(term);
    if (op === undefined) throw new FieldSelectorError(text, pos, term, { type: 'noOperator' });
    const field = term.slice(0, op.at);
    if (field.trim() === '') throw new FieldSelectorError(text, pos, term, { type: 'noField' });
    const value = unescapeValue(term, term.slice(op.at + op.token.length), text, pos);
    out.push({ field, operator: op.token === '!=' ? 'NotEquals' : 'Equals', value });
  }
  return out;
}

/**
 * Checks the selectors of a scope (an informer's, a ListerWatcher's): `InvalidOptionsError`, with
 * the parser's error as `cause`, for one the API server would refuse.
 */
export function checkSelectors(scope: { labelSelector?: unknown; fieldSelector?: unknown }): void {
  for (const [field, parse] of [
    ['labelSelector', parseLabelSelector],
    ['fieldSelector', parseFieldSelector],
  ] as const) {
    const value = scope[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new InvalidOptionsError(`${field} must be a string`);
    try {
      parse(value);
    } catch (e) {
      throw new InvalidOptionsError(`${field}: ${(e as Error).message}`, { cause: e });
    }
  }
}

/** The terms of `text`, split at unescaped commas, each with its offset. */
function splitTerms(text: string): { term: string; pos: number }[] {
  const terms: { term: string; pos: number }[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ',') {
      terms.push({ term: text.slice(start, i), pos: start });
      start = i + 1;
    }
  }
  terms.push({ term: text.slice(start), pos: start });
  return terms;
}

/** The first unescaped operator of a term (`!=` and `==` before `=`), or `undefined`. */
function findOperator(term: string): { at: number; token: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const token of ['!=', '==', '=']) if (term.startsWith(token, i)) return { at: i, token };
  }
  return undefined;
}

/** A value with its escapes resolved; an unknown escape or an unescaped `=` or `,` throws. */
function unescapeValue(term: string, raw: string, text: string, pos: number): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      const next = raw[i + 1];
      if (next !== '\\' && next !== ',' && next !== '=')
        throw new FieldSelectorError(text, pos, term, { type: 'badEscape', sequence: `\\${next ?? ''}`, value: raw });
      out += next;
      i++;
    } else if (c === '=' || c === ',') {
      throw new FieldSelectorError(text, pos, term, { type: 'unescaped', character: c, value: raw });
    } else out += c;
  }
  return out;
}
