/**
 * RxJS operators over an informer's deltas and store.
 */
export { ofType } from './ofType.ts';
export { inNamespace } from './inNamespace.ts';
export { withLabels } from './withLabels.ts';
export { selectFromStore } from './selectFromStore.ts';
export { perAnimationFrame } from './perAnimationFrame.ts';
