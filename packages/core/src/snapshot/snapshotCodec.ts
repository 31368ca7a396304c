/**
 * The snapshot format: a header line, then one line of JSON per object.
 *
 *   {"format":"rxinformer.snapshot","version":1,"identity":{…},"resourceVersion":"…","writtenAt":"…","objects":n,"chars":c,"checksum":"…"}
 *   {"apiVersion":"v1","kind":"ConfigMap",…}
 *   …
 *
 * `chars` counts everything after the header's newline; `checksum` (FNV-1a, 32 bits, over the
 * UTF-16 code units) covers that and the header's other fields, so a write cut short is `Truncated`
 * and changed content (a resource version too) `ChecksumMismatch`, both found before any object is
 * parsed. The header's identity must equal the reader's, or the
 * snapshot is `Foreign`. Objects are written one per line (JSON escapes every newline in a string)
 * so that a writer can add them in slices.
 */
import { jsonErrorDetail } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { FNV_BASIS, fnv1aFrom } from '../store/keyHash.ts';
import { SnapshotRejectedError } from './snapshotErrors.ts';
import { canonicalIdentity, hex32 as hex, identityDifference, type SnapshotIdentity } from './snapshotIdentity.ts';

/** The `format` of every snapshot's header. */
export const SNAPSHOT_FORMAT = 'rxinformer.snapshot';

/** The version of the format this package writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** A snapshot of an informer's cache, as written and as read back. */
export interface InformerSnapshot<T extends KubeObject = KubeObject> {
  /** Whose cache it is: server, resource, scope, transform. */
  readonly identity: SnapshotIdentity;
  /** The resource version the objects are at: a watch resumes from it. */
  readonly resourceVersion: string;
  /** When it was written (RFC 3339, the writer's wall clock). */
  readonly writtenAt: string;
  /** The cached objects, as stored (after the informer's transform). */
  readonly objects: readonly T[];
}

/** A snapshot being written: objects added in any number of slices, then the text. */
export interface SnapshotWriter {
  /** Adds objects, in order. */
  add(objects: readonly KubeObject[]): void;
  /** The encoded snapshot with everything added so far. */
  finish(meta: Omit<InformerSnapshot, 'objects'>): string;
}

/**
 * A writer of one snapshot: each `add` turns its objects into lines and continues the checksum,
 * so a large cache can be written a slice per task.
 *
 * @example
 * const writer = snapshotWriter();
 * writer.add(store.list());
 * const text = writer.finish({ identity, resourceVersion, writtenAt: new Date().toISOString() });
 */
export function snapshotWriter(): SnapshotWriter {
  const lines: string[] = [];
  let checksum = FNV_BASIS;
  let chars = 0;
  return {
    add(objects) {
      for (const obj of objects) {
        const line = JSON.stringify(obj);
        if (lines.length > 0) checksum = fnv1aFrom(checksum, '\n');
        checksum = fnv1aFrom(checksum, line);
        chars += line.length + (lines.length > 0 ? 1 : 0);
        lines.push(line);
      }
    },
    finish(meta) {
      const fields = { resourceVersion: meta.resourceVersion, writtenAt: meta.writtenAt, objects: lines.length, chars };
      const header = {
        format: SNAPSHOT_FORMAT,
        version: SNAPSHOT_FORMAT_VERSION,
        identity: canonicalIdentity(meta.identity),
        ...fields,
        checksum: hex(fnv1aFrom(checksum, sealed(meta.identity, fields))),
      };
      return `${JSON.stringify(header)}\n${lines.join('\n')}`;
    },
  };
}

/**
 * `snapshot` encoded in one go.
 *
 * @example
 * await store.save(snapshotKey(identity), encodeSnapshot({ identity, resourceVersion: '42', writtenAt, objects }));
 */
export function encodeSnapshot(snapshot: InformerSnapshot): string {
  const writer = snapshotWriter();
  writer.add(snapshot.objects);
  return writer.finish(snapshot);
}

/**
 * Reads a snapshot written by `encodeSnapshot`, checking it before any object is parsed: its
 * format and version, its identity against `expected`, its length and checksum. Throws
 * `SnapshotRejectedError` (its `reason` says why; `key` names it in messages) for anything else.
 *
 * @example
 * const text = await store.load(key);
 * const snapshot = text === undefined ? undefined : decodeSnapshot(text, identity, key);
 */
export function decodeSnapshot<T extends KubeObject = KubeObject>(text: string, expected: SnapshotIdentity, key = ''): InformerSnapshot<T> {
  const reject = (reason: ConstructorParameters<typeof SnapshotRejectedError>[0], detail: string, field?: string, cause?: unknown) =>
    new SnapshotRejectedError(reason, key, detail, { field, cause });
  if (typeof text !== 'string') throw reject('Malformed', 'the store returned no text');
  const end = text.indexOf('\n');
  if (end < 0) throw reject(text.length === 0 ? 'Truncated' : 'Malformed', 'no header line');
  const header = parseHeader(text.slice(0, end));
  if (header === undefined || header['format'] !== SNAPSHOT_FORMAT) throw reject('Malformed', 'not an rxinformer snapshot');
  if (header['version'] !== SNAPSHOT_FORMAT_VERSION)
    throw reject('UnsupportedVersion', `format version ${String(header['version'])}, this package reads ${SNAPSHOT_FORMAT_VERSION}`);
  const field = identityDifference(expected, header['identity']);
  if (field !== undefined) throw reject('Foreign', `written for another ${field}`, field);
  const { resourceVersion, writtenAt, objects, chars, checksum } = header;
  if (typeof resourceVersion !== 'string' || resourceVersion === '' || typeof writtenAt !== 'string' || !count(objects) || !count(chars))
    throw reject('Malformed', 'the header lacks resourceVersion, writtenAt, objects or chars');
  const body = text.slice(end + 1);
  if (body.length !== chars) throw reject('Truncated', `${body.length} characters after the header, ${chars} written`);
  if (snapshotChecksum(body, expected, { resourceVersion, writtenAt, objects, chars }) !== checksum)
    throw reject('ChecksumMismatch', 'the content does not match its checksum');
  const lines = objects === 0 && body === '' ? [] : body.split('\n');
  if (lines.length !== objects) throw reject('Malformed', `${lines.length} lines, ${objects} objects written`);
  const parsed = new Array<T>(lines.length);
  for (let i = 0; i < lines.length; i++) {
    let obj: unknown;
    try {
      obj = JSON.parse(lines[i]);
    } catch (cause) {
      throw reject('Malformed', `object ${i + 1} is not JSON (${jsonErrorDetail(cause)})`);
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw reject('Malformed', `object ${i + 1} is not a JSON object`);
    parsed[i] = obj as T;
  }
  return { identity: expected, resourceVersion, writtenAt, objects: parsed };
}

/** The header's fields besides the identity. */
interface HeaderFields {
  resourceVersion: string;
  writtenAt: string;
  objects: number;
  chars: number;
}

/** @internal The checksum a header gives `body`: its FNV-1a, continued over the header's other fields. */
export function snapshotChecksum(body: string, identity: SnapshotIdentity, fields: HeaderFields): string {
  return hex(fnv1aFrom(fnv1aFrom(FNV_BASIS, body), sealed(identity, fields)));
}

/** The header's fields the checksum covers after the body, as one text. */
function sealed(identity: SnapshotIdentity, fields: HeaderFields): string {
  const { resourceVersion, writtenAt, objects, chars } = fields;
  return JSON.stringify([
    SNAPSHOT_FORMAT,
    SNAPSHOT_FORMAT_VERSION,
    canonicalIdentity(identity),
    resourceVersion,
    writtenAt,
    objects,
    chars,
  ]);
}

/** The header's fields, unchecked, or `undefined` when the line is not a JSON object. */
function parseHeader(line: string): Record<string, unknown> | undefined {
  try {
    const header: unknown = JSON.parse(line);
    return header !== null && typeof header === 'object' && !Array.isArray(header) ? (header as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const count = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
