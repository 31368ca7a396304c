/** The type of objects as the wire carries them (rxinformer never converts what it decodes). */

/**
 * `T` as the wire carries it and a cache holds it: every `Date` in `T`, however deep, is the
 * RFC 3339 string the server sent; everything else is kept as is (optional and readonly fields,
 * arrays, maps, `IntOrString`, `any`). client-node's models (`V1Pod`, …) declare `Date` for
 * timestamps (`metadata.creationTimestamp`, conditions' `lastTransitionTime`, a Lease's
 * `renewTime`), but rxinformer never converts objects: client-node's typed descriptors give
 * `SharedInformer<Wire<V1Pod>>`, and `defineResource<Widget>` a `Wire<Widget>` informer.
 *
 * @example
 * const started = (p: Wire<V1Pod>) => Date.parse(p.status?.startTime ?? '');     // a number, or NaN
 * const age = Date.now() - Date.parse(pod.metadata?.creationTimestamp ?? '');      // not `.getTime()`
 *
 * Caveat: it describes the objects as decoded; a `transform` that made `Date`s of them would make
 * the type lie again. MicroTime fields (`renewTime`, `eventTime`) carry microseconds a `Date` would
 * lose: parse them only to compare, and write back the string read.
 */
export type Wire<T> = { [K in keyof T]: WireValue<T[K]> }; // a mapped type: hovers show `Wire<V1Pod>`

/** One value of `Wire`: a `Date` a string, an object or array `Wire`d, anything else (`any` too) as is. */
export type WireValue<V> = 0 extends 1 & V
  ? V
  : V extends Date
    ? string
    : V extends (...args: never[]) => unknown
      ? V
      : V extends object
        ? Wire<V> // arrays stay arrays
        : V;
