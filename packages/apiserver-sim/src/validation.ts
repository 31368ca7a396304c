/**
 * Object name rules of the API server, and the random suffix of `generateName`.
 */

/** A validation failure, as it goes into a 422 Status's `details.causes`. */
export interface Cause {
  reason: string;
  message: string;
  field: string;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Kinds whose names must be DNS-1123 labels (no dots, ≤ 63) rather than subdomains (≤ 253). */
const LABEL_NAMED = new Set(['namespaces', 'services']);

/** The causes refusing `name` for `resource` (plural); empty when valid. */
export function validateObjectName(resource: string, name: string, field = 'metadata.name'): Cause[] {
  if (LABEL_NAMED.has(resource)) {
    return name.length <= 63 && LABEL.test(name)
      ? []
      : [
          {
            reason: 'FieldValueInvalid',
            field,
            message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
          },
        ];
  }
  return name.length <= 253 && SUBDOMAIN.test(name)
    ? []
    : [
        {
          reason: 'FieldValueInvalid',
          field,
          message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        },
      ];
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Five characters from the API server's `generateName` alphabet. */
export function generateNameSuffix(random: () => number): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += SUFFIX_ALPHABET[Math.floor(random() * SUFFIX_ALPHABET.length)];
  return s;
}

/** kube-apiserver's limit on an events.k8s.io/v1 Event's note: bytes of UTF-8 (Go's `len`), not characters. */
export const EVENT_NOTE_LIMIT_BYTES = 1024;

/**
 * The causes refusing a new events.k8s.io/v1 Event's note: longer than 1,024 bytes of UTF-8, as
 * kube-apiserver 1.36 words it (the internal Event's field, `message`, and "characters"). core/v1
 * Events have no such limit.
 */
export function validateEventNote(note: unknown): Cause[] {
  if (typeof note !== 'string' || Buffer.byteLength(note, 'utf8') <= EVENT_NOTE_LIMIT_BYTES) return [];
  return [
    { reason: 'FieldValueInvalid', message: `Invalid value: "": can have at most ${EVENT_NOTE_LIMIT_BYTES} characters`, field: 'message' },
  ];
}
