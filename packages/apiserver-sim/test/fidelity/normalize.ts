/**
 * What is volatile in an answer, made comparable between two servers: uids become `uid1`, `uid2`…
 * and object resourceVersions `rv1`, `rv2`… in their order of appearance (so the same object seen
 * twice, or the relative order of two writes, still compares); a list's or a bookmark's
 * resourceVersion (the store's revision, which a real server's own writes move on) becomes
 * `>=rvN`, the latest object resourceVersion seen that it is not older than; times become `<time>`,
 * a generated name `prefix-<suffix>` (the suffix checked against the API server's alphabet),
 * continue tokens `<continue>` and a Table's cells of creation times (Age, Created At) `<age>`.
 */

/** Where a resourceVersion sits: an object's own, or a collection's (list, bookmark). */
type RvRole = 'object' | 'collection';

/** The columns of a Table that print an object's creation time (relative or not): they differ between two servers. */
const AGE_COLUMNS = new Set(['Age', 'Created At']);
const TIME_KEYS = new Set(['creationTimestamp', 'deletionTimestamp', 'time', 'lastTransitionTime', 'lastUpdateTime']);
/** The alphabet of generated name suffixes (apiserver's `names.SimpleNameGenerator`, 5 characters). */
const SUFFIX = /^[bcdfghjklmnpqrstvwxz2456789]{5}$/;

/** Normalizes the answers of one server for one case; one per server per case. */
export class Normalizer {
  readonly #rvs = new Map<string, string>();
  readonly #rvNumbers: [number, string][] = [];
  readonly #uids = new Map<string, string>();
  readonly #names = new Map<string, string>();
  /** The columns of creation times of the Tables seen (a Table watch sends the columns with its first event only). */
  #ageColumns: number[] = [];

  /** A token for an object's resourceVersion. */
  objectRv(rv: string): string {
    let token = this.#rvs.get(rv);
    if (token === undefined) {
      token = `rv${this.#rvs.size + 1}`;
      this.#rvs.set(rv, token);
      if (/^\d+$/.test(rv)) this.#rvNumbers.push([Number(rv), token]);
    }
    return token;
  }

  /** A token for a collection's resourceVersion: not older than which object's. */
  collectionRv(rv: string): string {
    if (!/^\d+$/.test(rv)) return rv === '' ? '' : `?${rv}`;
    const n = Number(rv);
    let best: [number, string] | undefined;
    for (const e of this.#rvNumbers) if (e[0] <= n && (!best || e[0] > best[0])) best = e;
    return `>=${best?.[1] ?? 'rv0'}`;
  }

  /** A token for a uid. */
  uid(uid: string): string {
    let token = this.#uids.get(uid);
    if (token === undefined) this.#uids.set(uid, (token = `uid${this.#uids.size + 1}`));
    return token;
  }

  /** Registers the generated names an answer carries, so that every later mention is replaced too. */
  #learnNames(value: unknown): void {
    if (Array.isArray(value)) return value.forEach((v) => this.#learnNames(v));
    if (!value || typeof value !== 'object') return;
    const o = value as Record<string, any>;
    const m = o.metadata as { name?: string; generateName?: string } | undefined;
    if (m && typeof m.name === 'string' && typeof m.generateName === 'string' && m.name.startsWith(m.generateName)) {
      const suffix = m.name.slice(m.generateName.length);
      if (SUFFIX.test(suffix) && !this.#names.has(m.name)) this.#names.set(m.name, `${m.generateName}<suffix${this.#names.size + 1}>`);
    }
    for (const v of Object.values(o)) this.#learnNames(v);
  }

  /** The normalized copy of an answer's body; `collection` says whether its top-level metadata is a list's. */
  body(value: unknown, collection = isCollection(value)): unknown {
    value = knownDifferences(value);
    this.#learnNames(value);
    this.#registerObjectRvs(value, collection);
    return this.#walk(value, collection ? 'collection' : 'object', []);
  }

  /** Registers the object resourceVersions of `value` first, so that its collection RV compares with them. */
  #registerObjectRvs(value: unknown, collection: boolean): void {
    const visit = (v: unknown, top: boolean) => {
      if (Array.isArray(v)) return v.forEach((x) => visit(x, false));
      if (!v || typeof v !== 'object') return;
      const o = v as Record<string, any>;
      const rv = o.metadata?.resourceVersion;
      if (typeof rv === 'string' && !(top && collection) && o.kind !== 'Status') this.objectRv(rv);
      for (const [k, x] of Object.entries(o)) if (k !== 'metadata') visit(x, false);
    };
    visit(value, true);
  }

  #walk(value: unknown, role: RvRole, path: string[]): unknown {
    if (Array.isArray(value)) return value.map((v) => this.#walk(v, 'object', path));
    if (typeof value === 'string') return this.#names.get(value) ?? this.#message(value, path);
    if (Array.isArray((value as any)?.columnDefinitions))
      this.#ageColumns = (value as any).columnDefinitions.flatMap((c: any, i: number) => (AGE_COLUMNS.has(c.name) ? [i] : []));
    if (!value || typeof value !== 'object') return value;
    const o = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const ageColumns = o.kind === 'Table' ? this.#ageColumns : [];
    for (const [k, v] of Object.entries(o)) {
      const inMeta = path[path.length - 1] === 'metadata';
      if (k === 'resourceVersion' && typeof v === 'string' && inMeta)
        out[k] = role === 'collection' ? this.collectionRv(v) : this.objectRv(v);
      else if (k === 'uid' && typeof v === 'string') out[k] = this.uid(v);
      else if (TIME_KEYS.has(k) && typeof v === 'string') out[k] = '<time>';
      else if (k === 'continue' && typeof v === 'string' && inMeta) out[k] = v === '' ? '' : '<continue>';
      else if (k === 'managedFields' && Array.isArray(v)) out[k] = this.#walk(managedFields(v), 'object', [...path, k]);
      else if (k === 'rows' && Array.isArray(v) && ageColumns.length > 0) out[k] = v.map((r) => this.#row(r, ageColumns, path));
      else out[k] = this.#walk(v, k === 'metadata' ? role : 'object', [...path, k]);
    }
    return out;
  }

  #row(row: any, ageColumns: number[], path: string[]): unknown {
    const age = (c: unknown, i: number) => (ageColumns.includes(i) && typeof c === 'string' ? '<age>' : c);
    const cells = Array.isArray(row.cells) ? row.cells.map(age) : row.cells;
    return this.#walk({ ...row, cells }, 'object', [...path, 'rows']);
  }

  /** Messages naming resource versions (410, 504, preconditions) or uids keep their words, not those. */
  #message(s: string, path: string[]): string {
    if (path[path.length - 1] !== 'message') return s;
    for (const [uid, token] of this.#uids) s = s.replaceAll(uid, token);
    return s
      .replace(/resource version: \d+( \(\d+\))?/g, (m) => m.replace(/\d+/g, 'N'))
      .replace(/current: \d+/g, 'current: N')
      .replace(/ResourceVersion in record \(\d+\)/g, 'ResourceVersion in record (N)');
  }
}

/** A list, a Table or a bookmark: its top-level resourceVersion is the store's, not an object's. */
function isCollection(value: unknown): boolean {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && (kind.endsWith('List') || kind === 'Table');
}

/**
 * managedFields less two things: the order of the entries (the API server sorts them by operation,
 * then by time in whole seconds, then by manager, so two servers a second apart may order them
 * differently: sorted here by operation, then untimed first, then manager), and the `.` marker of a
 * map, set or pointer struct an Update added (a known difference: the simulator has no schema to
 * tell a pointer struct from a value struct; see the README).
 */
function managedFields(entries: any[]): any[] {
  const key = (e: any) => `${e.operation}\u0000${e.time === undefined ? 0 : 1}\u0000${e.manager}\u0000${e.subresource ?? ''}`;
  const withoutDots = (f: unknown): unknown =>
    f && typeof f === 'object'
      ? Object.fromEntries(
          Object.entries(f)
            .filter(([k]) => k !== '.')
            .map(([k, v]) => [k, withoutDots(v)]),
        )
      : f;
  return [...entries]
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map((e) => ({ ...e, fieldsV1: withoutDots(e.fieldsV1) }));
}

/**
 * The known differences (the simulator's README lists each) taken out of an answer before it is
 * compared: the random order of an apply conflict's causes.
 */
function knownDifferences(value: unknown): unknown {
  const o = value as any;
  if (o?.kind === 'Status' && o.reason === 'Conflict' && Array.isArray(o.details?.causes)) {
    const text = (c: any) => `${c.field} ${c.message}`;
    return { ...o, details: { ...o.details, causes: [...o.details.causes].sort((a, b) => (text(a) < text(b) ? -1 : 1)) } };
  }
  return value;
}
