/**
 * The protobuf wire of `kubeConfigListerWatcher(…, { wire: 'protobuf' })`: core's `WireCodec` over
 * the decoder — list bodies, watch frames (a 4-byte big-endian length, then a WatchEvent whose
 * object is a whole `k8s\0` body), and Status answers.
 */
import { ResponseTooLargeError, WatchDecodeError, type KubeObject, type ListPage, type WatchEvent } from '@rxinformer/core';
import type { WatchDecoder, WireCodec } from '@rxinformer/core/http';
import { decodeObjectBody, decodeWatchEvent, peekListContinue } from './decode.ts';
import { ProtobufDecodeError } from './errors.ts';

/** The Kubernetes protobuf media type. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** What client-go sends to ask for protobuf: JSON stays acceptable (custom resources have no protobuf). */
export const PROTOBUF_ACCEPT = `${PROTOBUF_MEDIA_TYPE}, application/json`;

/**
 * The protobuf `WireCodec` for core's `httpListerWatcher`.
 *
 * @example
 * const lw = httpListerWatcher(transport.get, { path: '/api/v1/pods', codec: protobufCodec() });
 */
export function protobufCodec(): WireCodec {
  return {
    accept: PROTOBUF_ACCEPT,
    mediaType: PROTOBUF_MEDIA_TYPE,
    list: decodeListBody,
    peekContinue: peekListContinue,
    watch: createProtobufWatchDecoder,
    statusText: (body) => JSON.stringify(decodeObjectBody(body)),
  };
}

/**
 * A list body decoded: its items get the list's `apiVersion` and kind without `List`, as the JSON
 * path's do; an empty list's `items` is `[]`, as in JSON.
 */
export function decodeListBody(body: Uint8Array): ListPage<KubeObject> {
  const list = decodeObjectBody(body) as { apiVersion: string; kind: string; items?: KubeObject[] | null };
  const items = (list.items ??= []);
  if (list.kind.endsWith('List')) {
    const kind = list.kind.slice(0, -4);
    for (const item of items) {
      item.apiVersion = list.apiVersion;
      item.kind = kind;
    }
  }
  return list as unknown as ListPage<KubeObject>;
}

/**
 * The decoder of one protobuf watch stream: frames cut anywhere across chunks are joined; a frame
 * longer than `maxFrameBytes` throws `ResponseTooLargeError` (`watchLine`) before it is kept; a
 * frame that does not decode throws `WatchDecodeError` with the `ProtobufDecodeError` as `cause`;
 * a stream ending inside a frame throws `WatchDecodeError` at `end()`.
 */
export function createProtobufWatchDecoder(maxFrameBytes: number): WatchDecoder {
  let held: Buffer | undefined; // the bytes of a frame not complete yet
  return {
    push(chunk, emit) {
      if (typeof chunk === 'string') throw new WatchDecodeError('<text>', 'a protobuf watch stream came as text');
      let buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (held !== undefined) {
        buf = Buffer.concat([held, buf]);
        held = undefined;
      }
      let at = 0;
      while (buf.length - at >= 4) {
        const size = buf.readUInt32BE(at);
        if (size > maxFrameBytes) throw new ResponseTooLargeError('watchLine', maxFrameBytes);
        if (buf.length - at - 4 < size) break;
        const event = frameEvent(buf, at + 4, at + 4 + size);
        at += 4 + size;
        if (emit(event) === false) return false;
      }
      if (at < buf.length) held = buf.subarray(at);
      return true;
    },
    end() {
      if (held !== undefined) throw new WatchDecodeError('<protobuf frame>', 'the stream ended inside a frame');
    },
  };
}

function frameEvent(buf: Buffer, start: number, end: number): WatchEvent<KubeObject> {
  try {
    return decodeWatchEvent(buf, start, end) as unknown as WatchEvent<KubeObject>;
  } catch (cause) {
    if (!(cause instanceof ProtobufDecodeError)) throw cause;
    throw new WatchDecodeError('<protobuf frame>', cause.message, { cause });
  }
}
