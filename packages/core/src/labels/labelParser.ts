/**
 * The string form of a label selector read as kube-apiserver reads the `labelSelector` parameter
 * (apimachinery's `labels.Parse`): the same tokens — a NUL character included, which ends the
 * selector where a token would start and ends a token it follows — the same grammar, and its
 * error messages word for word, with the position of the offending token.
 */
import { aggregate, goQuote, labelKeyProblems, requirementProblems } from './labelRules.ts';
import type { LabelOperator, LabelRequirement } from './labelSelector.ts';

type TokenKind = 'id' | 'in' | 'notin' | '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '>' | '<' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

/** A selector the parser refuses: the API server's message and the offset of the offending token. */
export class SelectorSyntaxError extends Error {
  override readonly name: string = 'SelectorSyntaxError';
  readonly position: number;

  constructor(message: string, position: number) {
    super(message);
    this.position = position;
  }
}

const SPECIAL = '=!(),><';
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/**
 * Splits a selector into tokens as Go's lexer does, byte for byte where it matters: identifiers
 * run until whitespace or one of `=!(),><`; `==` and `!=` are the only two-character symbols; a
 * NUL right after a token is swallowed, and one where a token would start ends the selector.
 */
function lex(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i])) i++;
    if (i === s.length || s[i] === '\0') {
      out.push({ kind: 'end', text: '', pos: i });
      return out;
    }
    const pos = i;
    let kind: TokenKind;
    if (SPECIAL.includes(s[i])) {
      const two = s.slice(i, i + 2);
      const text = two === '==' || two === '!=' ? two : s[i];
      i += text.length;
      kind = text as TokenKind;
    } else {
      while (i < s.length && !isSpace(s[i]) && !SPECIAL.includes(s[i]) && s[i] !== '\0') i++;
      const text = s.slice(pos, i);
      kind = text === 'in' || text === 'notin' ? text : 'id';
    }
    out.push({ kind, text: s.slice(pos, i), pos });
    if (s[i] === '\0') i++; // Go's scanner reads the NUL that ends a token and drops it
  }
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

/** A token where a value may stand: `in` and `notin` are identifiers there. */
const isWord = (t: Token) => t.kind === 'id' || t.kind === 'in' || t.kind === 'notin';

/** The requirements of `text`, in written order; throws `SelectorSyntaxError`. */
export function parseRequirements(text: string): LabelRequirement[] {
  const tokens = lex(text);
  let p = 0;
  const fail = (t: Token, message: string): never => {
    throw new SelectorSyntaxError(message, t.pos);
  };
  const inRequirement = (t: Token, message: string): never => fail(t, `unable to parse requirement: ${message}`);
  const out: LabelRequirement[] = [];
  for (;;) {
    const start = tokens[p];
    if (start.kind === 'end') return out;
    if (!isWord(start) && start.kind !== '!') fail(start, `found '${start.text}', expected: !, identifier, or 'end of string'`);
    out.push(requirementAt(tokens, p, inRequirement, (next) => (p = next)));
    const sep = tokens[p++];
    if (sep.kind === 'end') return out;
    if (sep.kind !== ',') fail(sep, `found '${sep.text}', expected: ',' or 'end of string'`);
    const after = tokens[p];
    if (!isWord(after) && after.kind !== '!') fail(after, `found '${after.text}', expected: identifier after ','`);
  }
}

/** Reads the requirement at `tokens[p]` (`moveTo` the token after it), as Go's `parseRequirement`. */
function requirementAt(
  tokens: Token[],
  start: number,
  fail: (t: Token, message: string) => never,
  moveTo: (p: number) => void,
): LabelRequirement {
  let p = start;
  let t = tokens[p++];
  let operator: LabelOperator | undefined;
  if (t.kind === '!') {
    operator = 'DoesNotExist';
    t = tokens[p++];
  }
  if (!isWord(t)) fail(t, `found '${t.text}', expected: identifier`);
  const keyProblems = labelKeyProblems(t.text);
  if (keyProblems.length > 0) fail(t, `<nil>: Invalid value: ${goQuote(t.text)}: ${keyProblems.join('; ')}`);
  const key = t.text;
  const next = tokens[p].kind;
  if (operator === undefined && (next === 'end' || next === ',')) operator = 'Exists';
  const values: Token[] = [];
  if (operator === undefined) {
    const op = tokens[p++];
    operator = BINARY[op.kind] ?? fail(op, `found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    p = operator === 'In' || operator === 'NotIn' ? valueSet(tokens, p, values, fail) : exactValue(tokens, p, values, fail);
  }
  moveTo(p);
  // `values.List()`: the sorted set, as NewRequirement validates and names them
  const sorted = [...new Set(values.map((v) => v.text))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const problems = requirementProblems(key, operator, sorted);
  if (problems.length > 0) {
    const first = problems[0].valueIndex;
    const at = first === undefined ? t : values.find((v) => v.text === sorted[first])!;
    fail(at, aggregate(problems.map((x) => x.text)));
  }
  return { key, operator, values: sorted };
}

/** Reads `(v1,v2,…)` from `tokens[p]` into `values` (an empty slot is the empty value); the index after it. */
function valueSet(tokens: Token[], start: number, values: Token[], fail: (t: Token, message: string) => never): number {
  let p = start;
  const open = tokens[p++];
  if (open.kind !== '(') fail(open, `found '${open.text}' expected: '('`);
  const first = tokens[p];
  if (first.kind === ')') {
    values.push({ kind: 'id', text: '', pos: first.pos }); // `()` is the empty value
    return p + 1;
  }
  if (!isWord(first) && first.kind !== ',') fail(first, `found '${first.text}', expected: ',', ')' or identifier`);
  for (;;) {
    const t = tokens[p++];
    if (isWord(t)) {
      values.push(t);
      const after = tokens[p];
      if (after.kind === ')') return p + 1;
      if (after.kind !== ',') fail(after, `found '${after.text}', expected: ',' or ')'`);
    } else if (t.kind === ',') {
      const after = tokens[p];
      // `(,`, `,)` and `,,` hold the empty value
      if (values.length === 0 || after.kind === ')' || after.kind === ',') values.push({ kind: 'id', text: '', pos: t.pos + 1 });
      if (after.kind === ')') return p + 1;
    } else fail(t, `found '${t.text}', expected: ',', or identifier`);
  }
}

/** Reads the one value of `=`, `==`, `!=`, `>`, `<` (none before `,` or the end: the empty value); the index after it. */
function exactValue(tokens: Token[], p: number, values: Token[], fail: (t: Token, message: string) => never): number {
  const t = tokens[p];
  if (t.kind === 'end' || t.kind === ',') {
    values.push({ kind: 'id', text: '', pos: t.pos });
    return p;
  }
  if (!isWord(t)) fail(t, `found '${t.text}', expected: identifier`);
  values.push(t);
  return p + 1;
}
