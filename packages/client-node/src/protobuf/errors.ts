/** The error of a protobuf body or watch frame that cannot be decoded. */
import { RxInformerError } from '@rxinformer/core';

/** What was wrong with a protobuf body or frame. */
export type ProtobufDecodeReason =
  | 'NoMagic'
  | 'UnsupportedEncoding'
  | 'UnknownKind'
  | 'NoObject'
  | 'Truncated'
  | 'BadVarint'
  | 'BadTag'
  | 'BadWireType'
  | 'BadTime'
  | 'BadRawJson';

/**
 * A protobuf body or watch frame that is not a Kubernetes object the schema table decodes: no
 * `k8s\0` magic, a field cut short, a wire type its schema does not allow, a kind the table lacks.
 * `reason` says which. A list answers with it; a watch ends with a `WatchDecodeError` whose
 * `cause` it is (the reflector then relists, as for a malformed JSON line).
 *
 * @example
 * if (e instanceof WatchDecodeError && e.cause instanceof ProtobufDecodeError) console.error(e.cause.reason);
 */
export class ProtobufDecodeError extends RxInformerError {
  /** Always `ProtobufDecodeError`: set as a string, so it survives minification. */
  override readonly name: string = 'ProtobufDecodeError';
  /** What was wrong. */
  declare readonly reason: ProtobufDecodeReason;

  constructor(reason: ProtobufDecodeReason, detail: string, options?: { cause?: unknown }) {
    super(reason, `cannot decode protobuf: ${detail}`, options);
  }
}
