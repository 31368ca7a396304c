/**
 * Label selectors: parsing, matching and printing; field selectors: parsing.
 *
 * @module @rxinformer/core/labels
 */
export {
  LabelSelectorError,
  parseLabelSelector,
  matchesLabels,
  labelSelectorToString,
  fromLabelSelectorObject,
  isValidLabelKey,
  isValidLabelValue,
} from './labelSelector.ts';
export type { LabelOperator, LabelRequirement, LabelSelector, LabelSelectorObject } from './labelSelector.ts';
export { FieldSelectorError, parseFieldSelector, checkSelectors } from './fieldSelector.ts';
export type { FieldOperator, FieldRequirement } from './fieldSelector.ts';
