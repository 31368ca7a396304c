/**
 * The checks of label keys, values and requirements, worded as kube-apiserver words them
 * (apimachinery's `content.IsLabelKey`, `IsLabelValue` and `labels.NewRequirement`), so a selector
 * refused here reads as the API server's 400 would.
 */
import type { LabelOperator } from './labelSelector.ts';

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const INTEGER = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** The length of `s` in UTF-8 bytes, as Go counts a string. */
function bytes(s: string): number {
  let n = 0;
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/** What is wrong with a label key, in the API server's words; empty when it is valid. */
export function labelKeyProblems(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return [`a valid label key ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') problems.push('prefix part must be non-empty');
    else {
      if (bytes(prefix) > 253) problems.push('prefix part must be no more than 253 bytes');
      if (!DNS_SUBDOMAIN.test(prefix)) problems.push(`prefix part ${SUBDOMAIN_RULE}`);
    }
  }
  const name = parts[parts.length - 1];
  if (name === '') problems.push('name part must be non-empty');
  else if (bytes(name) > 63) problems.push('name part must be no more than 63 bytes');
  if (!NAME.test(name)) problems.push(`name part ${NAME_RULE}`);
  return problems;
}

/** What is wrong with a label value, in the API server's words; empty when it is valid. */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (bytes(value) > 63) problems.push('must be no more than 63 bytes');
  if (!VALUE.test(value)) problems.push(VALUE_RULE);
  return problems;
}

/** Go's `strconv.ParseInt(s, 10, 64)`: undefined when not a 64-bit integer. */
export function parseInt64(s: string): bigint | undefined {
  if (!INTEGER.test(s)) return undefined;
  const n = BigInt(s);
  return n > INT64_MAX || n < -INT64_MAX - 1n ? undefined : n;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** `s` quoted as Go's `%q` quotes it: control characters escaped, printable ones as they are. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (ESCAPES[c] !== undefined) out += ESCAPES[c];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

/** One field error of a requirement: its text (`values[0][app]: Invalid value: …`) and the value it is about. */
export interface RequirementProblem {
  readonly text: string;
  /** Index in the requirement's values; undefined for the key, the operator or the value count. */
  readonly valueIndex?: number;
}

/** A field error's text, as apimachinery's `field.Invalid(path, value, detail).Error()` writes it. */
export const invalid = (path: string, value: string, detail: string): string => `${path}: Invalid value: ${goQuote(value)}: ${detail}`;

const OPERATORS: readonly LabelOperator[] = ['Equals', 'NotEquals', 'In', 'NotIn', 'Exists', 'DoesNotExist', 'GreaterThan', 'LessThan'];

/** The problems of a requirement, in the order and words of `labels.NewRequirement`; empty when valid. */
export function requirementProblems(key: unknown, operator: LabelOperator, values: readonly unknown[]): RequirementProblem[] {
  const out: RequirementProblem[] = [];
  const keyProblems = typeof key === 'string' ? labelKeyProblems(key) : ['must be a string'];
  if (keyProblems.length > 0) out.push({ text: invalid('key', String(key), keyProblems.join('; ')) });
  const count = (detail: string) => out.push({ text: `values: Invalid value: ${JSON.stringify(values)}: ${detail}` });
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) count("for 'in', 'notin' operators, values set can't be empty");
      break;
    case 'Equals':
    case 'NotEquals':
      if (values.length !== 1) count('exact-match compatibility requires one single value');
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) count('values set must be empty for exists and does not exist');
      break;
    case 'GreaterThan':
    case 'LessThan':
      if (values.length !== 1) count("for 'Gt', 'Lt' operators, exactly one value is required");
      values.forEach((v, i) => {
        if (typeof v !== 'string' || parseInt64(v) === undefined)
          out.push({ text: invalid(`values[${i}]`, String(v), "for 'Gt', 'Lt' operators, the value must be an integer"), valueIndex: i });
      });
      break;
    default:
      out.push({
        text: `operator: Unsupported value: ${goQuote(String(operator))}: supported values: ${OPERATORS.map((o) => `"${o}"`).join(', ')}`,
      });
  }
  values.forEach((v, i) => {
    const problems = typeof v === 'string' ? labelValueProblems(v) : ['must be a string'];
    if (problems.length > 0) out.push({ text: invalid(`values[${i}][${String(key)}]`, String(v), problems.join('; ')), valueIndex: i });
  });
  return out;
}

/** Several errors as apimachinery aggregates them: one as it is, more de-duplicated in brackets. */
export function aggregate(texts: readonly string[]): string {
  const unique = [...new Set(texts)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
