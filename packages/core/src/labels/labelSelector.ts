/**
 * Kubernetes label selectors: the string form (`app=web,tier in (a,b),!canary,replicas>2`) and the
 * structured `metav1.LabelSelector` form, parsed, validated and matched exactly as the API server
 * does it (`k8s.io/apimachinery/pkg/labels`). Used by the core operators and by the simulator.
 */
import { describeValue, RxInformerError } from '../errors.ts';
import { parseRequirements, SelectorSyntaxError } from './labelParser.ts';
import { aggregate, labelKeyProblems, labelValueProblems, parseInt64, requirementProblems } from './labelRules.ts';

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
 * selector string (for the structured form, `field` names the offending field instead); `detail`
 * says what is wrong in the API server's words: for the string form, the message of the 400
 * kube-apiserver answers a list or watch with that `labelSelector`.
 *
 * @example
 * try { parseLabelSelector('a in (x'); } catch (e) { if (e instanceof LabelSelectorError) console.log(e.detail); }
 * // unable to parse requirement: found '', expected: ',' or ')'
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
  /** What is wrong, as kube-apiserver words it (for the string form, its Status message). */
  readonly detail: string;

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
    this.detail = detail;
  }
}

/** True for a valid label key: an optional DNS-subdomain prefix (≤ 253 chars) and `/`, then a name of ≤ 63 `[A-Za-z0-9._-]` starting and ending alphanumeric. */
export function isValidLabelKey(key: string): boolean {
  return labelKeyProblems(key).length === 0;
}

/** True for a valid label value: empty, or ≤ 63 chars of `[A-Za-z0-9._-]` starting and ending alphanumeric. */
export function isValidLabelValue(value: string): boolean {
  return labelValueProblems(value).length === 0;
}

const byKey = (a: LabelRequirement, b: LabelRequirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const sortedSet = (values: Iterable<string>): string[] => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Builds one requirement, validating it as `labels.NewRequirement` does. `fail(detail, valueIndex?)`
 * reports the problems, in the API server's words (a key problem has no index).
 */
function requirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  fail: (detail: string, valueIndex?: number) => never,
): LabelRequirement {
  const problems = requirementProblems(key, operator, values);
  if (problems.length > 0) fail(aggregate(problems.map((p) => p.text)), problems[0].valueIndex);
  return { key, operator, values: sortedSet(values) };
}

/**
 * Parses the string form of a selector, as `kubectl -l` and the `labelSelector` query parameter
 * take it: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k in (v1,v2)`, `k notin (v1,v2)`,
 * `k`, `!k`, `k>n`, `k<n`, with optional whitespace around every token. Refuses exactly what
 * kube-apiserver refuses: throws `LabelSelectorError` with the server's message (`detail`) and
 * the position of the offending token.
 *
 * The result is sorted by key, with each requirement's values sorted and de-duplicated, so
 * `labelSelectorToString` of it is the canonical form.
 *
 * Caveat: as on the server, `k in ()` is `k in ("")` (an empty slot is the empty value), and a
 * NUL character where a token would start ends the selector (`a=b \u0000junk` is `a=b`).
 *
 * @example
 * const sel = parseLabelSelector('app=web, tier notin (db)');
 * matchesLabels(sel, { app: 'web', tier: 'frontend' }); // true
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return parseRequirements(text).sort(byKey);
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new LabelSelectorError(text, e.position, e.message);
    throw e;
  }
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
