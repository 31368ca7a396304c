/**
 * Label selectors: parsing, matching and printing.
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
