/**
 * Plain JSON values, as request bodies and stored objects are: the type, the object test, deep
 * equality and deep copy every layer of the simulator uses.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A JSON object (not null, not an array): a FieldsV1 node or a map of an object. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Deep equality of JSON values, insensitive to key order, allocation-free. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!jsonEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** A deep copy of a JSON value (a round trip through its JSON text); undefined stays undefined. */
export const cloneJson = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
