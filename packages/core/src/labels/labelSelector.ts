/**
 * Kubernetes label selectors: the string form (`app=web,tier in (a,b),!canary,replicas>2`) and the
 * structured `metav1.LabelSelector` form, parsed, validated and matched exactly as the API server
 * does it (`k8s.io/apimachinery/pkg/labels`). Used by the core operators and by the simulator.
 */
import { describeValue, RxInformerError } from '../errors.ts';

/** The operator of one requirement. `GreaterThan` / `LessThan` compare integers (`a>3`, `a<3`). */
export type LabelOperator = 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'GreaterThan' | 'LessThan';

/**
 * One requirement of a selector. `values` is a sorted set: one value for `Equals`, `NotEquals`,
 * `GreaterThan` and `LessThan`, at least one for `In` and `NotIn`, none for `Exists` and `DoesNotExist`.
 */
export interface LabelRequirement {
  /** The label key. */
  readonly key: string;
  /** How the label is compared. */
  readonly operator: LabelOperator;
  /** Operands: one for `=`/`!=`, any number for `in`/`notin`, none for existence. */
  readonly values: readonly string[];
}

/** A parsed selector: every requirement must hold. Empty = everything matches. Sorted by key. */
export type LabelSelector = readonly LabelRequirement[];

/** The structured form of a selector, as in a Deployment's `spec.selector`. */
export interface LabelSelectorObject {
  /** Labels that must be equal. */
  matchLabels?: Readonly<Record<string, string>>;
  /** Requirements: `In`, `NotIn`, `Exists`, `DoesNotExist`. */
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}

/**
 * A selector that is not valid. `position` is the 0-based offset of the offending token in the
 * selector string (for the structured form, `field` names the offending field instead).
 */
export class LabelSelectorError extends RxInformerError {
  /** Always `LabelSelectorError`: set as a string, so it survives minification. */
  override readonly name: string = 'LabelSelectorError';
  /** The selector as given (the structured form as JSON). */
  readonly selector: string;
  /** Offset of the offending token in `selector`; -1 for the structured form. */
  readonly position: number;
  /** For the structured form: the offending field, e.g. `matchExpressions[1].operator`. */
  readonly field?: string;

  constructor(selector: string, position: number, detail: string, field?: string) {
    const where = field !== undefined ? `${field}: ` : '';
    const at =
      position >= 0
        ? ` at position ${position}${position < selector.length ? ` ("${selector.slice(position, position + 20)}")` : ' (end)'}`
        : '';
    super('InvalidSelector', `invalid label selector "${selector.slice(0, 200)}": ${where}${detail}${at}`);
    this.selector = selector;
    this.position = position;
    this.field = field;
  }
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const INTEGER = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;

/** True for a valid label key: an optional DNS-subdomain prefix (≤ 253 chars) and `/`, then a name of ≤ 63 `[A-Za-z0-9._-]` starting and ending alphanumeric. */
export function isValidLabelKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2 && (parts[0].length === 0 || parts[0].length > 253 || !DNS_SUBDOMAIN.test(parts[0]))) return false;
  return name.length <= 63 && NAME.test(name);
}

/** True for a valid label value: empty, or ≤ 63 chars of `[A-Za-z0-9._-]` starting and ending alphanumeric. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && VALUE.test(value);
}

/** Go's `strconv.ParseInt(s, 10, 64)`: undefined when not a 64-bit integer. */
function parseInt64(s: string): bigint | undefined {
  if (!INTEGER.test(s)) return undefined;
  const n = BigInt(s);
  return n > INT64_MAX || n < -INT64_MAX - 1n ? undefined : n;
}

type TokenKind = 'id' | 'in' | 'notin' | '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '>' | '<' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

const SPECIAL = '=!(),><';
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/** Splits a selector into tokens: identifiers run until whitespace or one of `=!(),><`. */
function lex(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i])) i++;
    if (i === s.length) {
      out.push({ kind: 'end', text: '', pos: i });
      return out;
    }
    const pos = i;
    if (SPECIAL.includes(s[i])) {
      const two = s.slice(i, i + 2);
      const text = two === '==' || two === '!=' ? two : s[i];
      i += text.length;
      out.push({ kind: text as TokenKind, text, pos });
      continue;
    }
    while (i < s.length && !isSpace(s[i]) && !SPECIAL.includes(s[i])) i++;
    const text = s.slice(pos, i);
    out.push({ kind: text === 'in' || text === 'notin' ? text : 'id', text, pos });
  }
}

const byKey = (a: LabelRequirement, b: LabelRequirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const sortedSet = (values: Iterable<string>): string[] => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Builds one requirement, validating it as `labels.NewRequirement` does. `fail(detail, valueIndex?)`
 * reports the problem (a key problem has no index).
 */
function requirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  fail: (detail: string, valueIndex?: number) => never,
): LabelRequirement {
  if (typeof key !== 'string' || !isValidLabelKey(key))
    fail(
      `invalid label key "${key}": a name of at most 63 characters ([A-Za-z0-9._-], alphanumeric at both ends) with an optional DNS subdomain prefix and "/"`,
    );
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) fail(`for "${operator === 'In' ? 'in' : 'notin'}", the set of values cannot be empty`);
      break;
    case 'Equals':
    case 'NotEquals':
      if (values.length !== 1) fail('exact match needs exactly one value');
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) fail(`${operator} takes no values`);
      break;
    case 'GreaterThan':
    case 'LessThan':
      if (values.length !== 1) fail(`${operator} needs exactly one value`);
      if (parseInt64(values[0]) === undefined) fail(`"${values[0]}" is not an integer, which ${operator} needs`, 0);
      break;
    default:
      fail(`"${operator as string}" is not a valid label selector operator`);
  }
  values.forEach((v, i) => {
    if (typeof v !== 'string' || !isValidLabelValue(v))
      fail(`invalid label value "${v}": at most 63 characters ([A-Za-z0-9._-], alphanumeric at both ends)`, i);
  });
  return { key, operator, values: sortedSet(values) };
}

const BINARY: Partial<Record<TokenKind, LabelOperator>> = {
  '=': 'Equals',
  '==': 'Equals',
  '!=': 'NotEquals',
  in: 'In',
  notin: 'NotIn',
  '>': 'GreaterThan',
  '<': 'LessThan',
};
const show = (t: Token) => (t.kind === 'end' ? 'end of string' : `"${t.text}"`);

/**
 * Parses the string form of a selector, as `kubectl -l` and the `labelSelector` query parameter
 * take it: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k in (v1,v2)`, `k notin (v1,v2)`,
 * `k`, `!k`, `k>n`, `k<n`, with optional whitespace around every token. Throws `LabelSelectorError`
 * naming the position of the offending token.
 *
 * The result is sorted by key, with each requirement's values sorted and de-duplicated, so
 * `labelSelectorToString` of it is the canonical form.
 *
 * @example
 * const sel = parseLabelSelector('app=web, tier notin (db)');
 * matchesLabels(sel, { app: 'web', tier: 'frontend' }); // true
 */
export function parseLabelSelector(text: string): LabelSelector {
  const tokens = lex(text);
  let p = 0;
  const peek = () => tokens[p];
  // `in` and `notin` are plain identifiers wherever a key or value is expected.
  const isWord = (t: Token) => t.kind === 'id' || t.kind === 'in' || t.kind === 'notin';
  const failAt = (t: Token, detail: string): never => {
    throw new LabelSelectorError(text, t.pos, detail);
  };
  const out: LabelRequirement[] = [];
  if (peek().kind === 'end') return out;
  for (;;) {
    let t = tokens[p++];
    let operator: LabelOperator | undefined;
    if (t.kind === '!') {
      operator = 'DoesNotExist';
      t = tokens[p++];
    }
    if (!isWord(t)) failAt(t, `found ${show(t)}, expected ${operator ? 'a label key' : '"!" or a label key'}`);
    const keyToken = t;
    const key = keyToken.text;
    const values: Token[] = [];
    if (operator === undefined && (peek().kind === 'end' || peek().kind === ',')) operator = 'Exists';
    if (operator === undefined) {
      const opToken = tokens[p++];
      operator = BINARY[opToken.kind];
      if (operator === undefined) failAt(opToken, `found ${show(opToken)}, expected one of =, ==, !=, in, notin, >, <`);
      if (operator === 'In' || operator === 'NotIn') {
        const open = tokens[p++];
        if (open.kind !== '(') failAt(open, `found ${show(open)}, expected "("`);
        for (;;) {
          // An empty slot (`()`, `(a,)`, `(,a)`) is the empty value, as the API server reads it.
          const v = isWord(peek()) ? tokens[p++] : { kind: 'id' as const, text: '', pos: peek().pos };
          values.push(v);
          const sep = tokens[p++];
          if (sep.kind === ')') break;
          if (sep.kind !== ',') failAt(sep, `found ${show(sep)}, expected "," or ")"`);
        }
      } else if (peek().kind === 'end' || peek().kind === ',') {
        values.push({ kind: 'id', text: '', pos: peek().pos }); // `a=` is `a` with the empty value
      } else {
        const v = tokens[p++];
        if (!isWord(v)) failAt(v, `found ${show(v)}, expected a label value`);
        values.push(v);
      }
    }
    out.push(
      requirement(
        key,
        operator!,
        values.map((v) => v.text),
        (detail, i) => failAt(i === undefined ? keyToken : values[i], detail),
      ),
    );
    const sep = tokens[p++];
    if (sep.kind === 'end') break;
    if (sep.kind !== ',') failAt(sep, `found ${show(sep)}, expected "," or end of string`);
    if (peek().kind === 'end') failAt(peek(), 'found end of string, expected a requirement after ","');
  }
  return out.sort(byKey);
}

/**
 * Does `labels` satisfy every requirement? Missing labels: `NotEquals` / `NotIn` / `DoesNotExist`
 * hold, everything else fails; `GreaterThan` / `LessThan` fail when the label is not an integer.
 *
 * @example
 * matchesLabels(parseLabelSelector('replicas>2'), { replicas: '3' }); // true
 */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const r of selector) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const value = has ? labels![r.key] : undefined;
    let ok: boolean;
    switch (r.operator) {
      case 'Exists':
        ok = has;
        break;
      case 'DoesNotExist':
        ok = !has;
        break;
      case 'Equals':
      case 'In':
        ok = has && r.values.includes(value!);
        break;
      case 'NotEquals':
      case 'NotIn':
        ok = !has || !r.values.includes(value!);
        break;
      case 'GreaterThan':
      case 'LessThan': {
        const actual = has ? parseInt64(value!) : undefined;
        const bound = parseInt64(r.values[0]);
        ok = actual !== undefined && bound !== undefined && (r.operator === 'GreaterThan' ? actual > bound : actual < bound);
        break;
      }
      default:
        ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

/**
 * The canonical string form: requirements sorted by key, values sorted and de-duplicated, no
 * whitespace but the one around `in` / `notin`. `parseLabelSelector` reads it back to an equal
 * selector. Throws `LabelSelectorError` for a requirement that could not be parsed back.
 *
 * @example
 * labelSelectorToString(parseLabelSelector(' b in (y,x), a ')); // 'a,b in (x,y)'
 */
export function labelSelectorToString(selector: LabelSelector): string {
  const reqs = selector.map((r, i) =>
    requirement(r.key, r.operator, r.values, (detail) => {
      throw new LabelSelectorError(JSON.stringify(selector), -1, detail, `[${i}]`);
    }),
  );
  return reqs
    .sort(byKey)
    .map((r) => {
      switch (r.operator) {
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
        case 'Equals':
          return `${r.key}=${r.values[0]}`;
        case 'NotEquals':
          return `${r.key}!=${r.values[0]}`;
        case 'GreaterThan':
          return `${r.key}>${r.values[0]}`;
        case 'LessThan':
          return `${r.key}<${r.values[0]}`;
        case 'In':
          return `${r.key} in (${r.values.join(',')})`;
        case 'NotIn':
          return `${r.key} notin (${r.values.join(',')})`;
      }
    })
    .join(',');
}

const EXPRESSION_OPERATORS: Record<string, LabelOperator> = { In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist' };

/**
 * Converts the structured `metav1.LabelSelector` form: `matchLabels` become `Equals`,
 * `matchExpressions` take the operators `In`, `NotIn`, `Exists`, `DoesNotExist` (case-sensitive).
 * An empty object matches everything. Throws `LabelSelectorError` with `field` set.
 *
 * @example
 * fromLabelSelectorObject({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] });
 */
export function fromLabelSelectorObject(obj: LabelSelectorObject): LabelSelector {
  const text = JSON.stringify(obj) ?? describeValue(obj);
  const failIn =
    (field: string) =>
    (detail: string): never => {
      throw new LabelSelectorError(text, -1, detail, field);
    };
  if (obj === null || typeof obj !== 'object') failIn('')('a label selector object must be an object');
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(obj.matchLabels ?? {})) {
    if (typeof value !== 'string') failIn(`matchLabels[${JSON.stringify(key)}]`)('a label value must be a string');
    out.push(requirement(key, 'Equals', [value], failIn(`matchLabels[${JSON.stringify(key)}]`)));
  }
  (obj.matchExpressions ?? []).forEach((e, i) => {
    const operator =
      typeof e?.operator === 'string' && Object.hasOwn(EXPRESSION_OPERATORS, e.operator) ? EXPRESSION_OPERATORS[e.operator] : undefined;
    if (operator === undefined)
      failIn(`matchExpressions[${i}].operator`)(
        `"${e?.operator}" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
      );
    out.push(requirement(e.key, operator!, e.values ?? [], failIn(`matchExpressions[${i}]`)));
  });
  return out.sort(byKey);
}
