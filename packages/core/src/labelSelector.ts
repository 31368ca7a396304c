/**
 * Kubernetes label selectors: parsing the string form (`app=web,tier in (a,b),!canary`) and
 * matching labels against it, with the same syntax and validation as the API server.
 */
import { RxInformerError } from './errors.ts';

/** One requirement of a selector. */
export interface LabelRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals' | 'NotEquals';
  values: string[];
}

/** A parsed selector: every requirement must hold (an empty selector matches everything). */
export type LabelSelector = readonly LabelRequirement[];

/** A selector string that is not valid, with the position of the problem. */
export class LabelSelectorError extends RxInformerError {
  readonly selector: string;
  readonly position: number;

  constructor(selector: string, position: number, detail: string) {
    super('InvalidSelector', `invalid label selector "${selector}" at ${position}: ${detail}`);
    this.selector = selector;
    this.position = position;
  }
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** True for a valid label key: an optional DNS-subdomain prefix (≤ 253) and `/`, then a name (≤ 63). */
export function isValidLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix)) return false;
  }
  return name.length <= 63 && NAME.test(name);
}

/** True for a valid label value: empty, or ≤ 63 characters of `[A-Za-z0-9._-]` starting and ending alphanumeric. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && VALUE.test(value);
}

/**
 * Parses a selector string. Throws `LabelSelectorError`.
 *
 * @example
 * matchesLabels(parseLabelSelector('app=web,tier notin (db)'), { app: 'web', tier: 'fe' }); // true
 */
export function parseLabelSelector(text: string): LabelSelector {
  const s = text;
  let i = 0;
  let tokenStart = 0;
  const fail = (detail: string): never => { throw new LabelSelectorError(text, tokenStart, detail); };
  const ws = () => { while (i < s.length && s[i] === ' ') i++; };
  const word = (): string => {
    ws();
    const start = (tokenStart = i);
    while (i < s.length && !' ,=!()'.includes(s[i])) i++;
    return s.slice(start, i);
  };
  const key = (k: string): string => (isValidLabelKey(k) ? k : fail(`invalid label key "${k}"`));
  const value = (v: string): string => (isValidLabelValue(v) ? v : fail(`invalid label value "${v}"`));
  const out: LabelRequirement[] = [];
  ws();
  if (i === s.length) return out;
  for (;;) {
    ws();
    if (s[i] === '!') {
      i++;
      out.push({ key: key(word()), operator: 'DoesNotExist', values: [] });
    } else {
      const k = key(word());
      ws();
      if (s.startsWith('==', i) || s[i] === '=') {
        i += s.startsWith('==', i) ? 2 : 1;
        out.push({ key: k, operator: 'Equals', values: [value(word())] });
      } else if (s.startsWith('!=', i)) {
        i += 2;
        out.push({ key: k, operator: 'NotEquals', values: [value(word())] });
      } else if (i === s.length || s[i] === ',') {
        out.push({ key: k, operator: 'Exists', values: [] });
      } else {
        const op = word();
        if (op !== 'in' && op !== 'notin') fail(`expected =, ==, !=, in or notin, found "${op}"`);
        ws();
        tokenStart = i;
        if (s[i] !== '(') fail('expected "("');
        i++;
        const values: string[] = [];
        for (;;) {
          values.push(value(word()));
          ws();
          tokenStart = i;
          if (s[i] === ',') { i++; continue; }
          if (s[i] === ')') { i++; break; }
          fail('expected "," or ")"');
        }
        out.push({ key: k, operator: op === 'in' ? 'In' : 'NotIn', values });
      }
    }
    ws();
    tokenStart = i;
    if (i === s.length) return out;
    if (s[i] !== ',') fail('expected ","');
    i++;
  }
}

/** Does `labels` satisfy every requirement of `selector`? */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const l = labels ?? {};
  return selector.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.operator) {
      case 'Exists': return has;
      case 'DoesNotExist': return !has;
      case 'Equals': case 'In': return has && r.values.includes(l[r.key]);
      case 'NotEquals': case 'NotIn': return !has || !r.values.includes(l[r.key]);
    }
  });
}

/** The canonical string form of a selector (parses back to the same selector). */
export function labelSelectorToString(selector: LabelSelector): string {
  return selector.map((r) => {
    switch (r.operator) {
      case 'Exists': return r.key;
      case 'DoesNotExist': return `!${r.key}`;
      case 'Equals': return `${r.key}=${r.values[0]}`;
      case 'NotEquals': return `${r.key}!=${r.values[0]}`;
      case 'In': return `${r.key} in (${r.values.join(',')})`;
      case 'NotIn': return `${r.key} notin (${r.values.join(',')})`;
    }
  }).join(',');
}

/** Converts the structured `metav1.LabelSelector` form (`matchLabels`, `matchExpressions`). */
export function fromLabelSelectorObject(obj: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] }): LabelSelector {
  const out: LabelRequirement[] = Object.entries(obj.matchLabels ?? {}).map(([key, v]) => ({ key, operator: 'Equals' as const, values: [v] }));
  for (const e of obj.matchExpressions ?? []) {
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) throw new LabelSelectorError(JSON.stringify(e), 0, `unknown operator ${e.operator}`);
    out.push({ key: e.key, operator: e.operator as LabelRequirement['operator'], values: e.values ?? [] });
  }
  return out;
}
