/**
 * @rxinformer/core/projection — what list views hold: projections of objects to the field paths
 * a view shows (`project`, `projected`), presets for pods, nodes and deployments with kubectl's
 * columns computed from them (`PRESETS`, `podCells`, `nodeCells`, `deploymentCells`), and
 * kubectl's ages (`formatAge`, `humanDuration`). The server's own Table rows are `tableRows()`,
 * exported here and at the root.
 *
 * @example
 * const podRows = factory.informerFor(projected(pods, PRESETS.pods));
 * podRows.getStore().list().map((p) => podCells(p, Date.now())); // { Name, Ready, Status, Restarts, Age, … }
 *
 * @module @rxinformer/core/projection
 */

// Projections
export { FieldPathError, formatFieldPath, parseFieldPath } from './fieldPath.ts';
export type { FieldPath, FieldPathStep } from './fieldPath.ts';
export { INFORMER_FIELDS, project } from './project.ts';
export { projected } from './projected.ts';
export type { ProjectedDescriptor } from './projected.ts';
export type { PartialDeep, Projected, Projection } from '../types.ts';

// Presets and kubectl's columns
export { PRESET_PATHS, PRESETS } from './presets.ts';
export { deploymentCells, nodeCells } from './kubectlColumns.ts';
export { podCells } from './podColumns.ts';
export type { DeploymentCells, DeploymentColumnsInput, NodeCells, NodeColumnsInput } from './kubectlColumns.ts';
export type { PodCells, PodColumnsInput } from './podColumns.ts';
export { formatAge, humanDuration } from './age.ts';

// The server's Table rows
export { TABLE_ACCEPT, TABLE_COLUMNS, TABLE_ROW_TYPE, TableDecodeError, tableColumns, tableRows } from '../tableRow.ts';
export type { TableColumnDefinition, TableRowCondition, TableRowObject, TableRowsDescriptor } from '../tableRow.ts';
