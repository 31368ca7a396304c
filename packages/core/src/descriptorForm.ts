/**
 * The forms a resource descriptor names its objects in: whole (`full`), metadata only
 * (`metadataOnly()`), the server's Table rows (`tableRows()`) or a projection (`projected()`). One
 * form per descriptor; an informer factory keeps the informers of each form apart.
 */
import { InvalidOptionsError } from './errors.ts';
import type { ResourceDescriptor } from './types.ts';

/** Which objects an informer of a descriptor holds. */
export type DescriptorForm = 'full' | 'metadata' | 'table' | 'projection';

const NAMES: Record<Exclude<DescriptorForm, 'full'>, string> = { metadata: 'metadata-only', table: 'Table rows', projection: 'projected' };

/**
 * The form of `resource`; throws `InvalidOptionsError` when it asks for more than one.
 *
 * @example
 * descriptorForm(metadataOnly(pods)); // 'metadata'
 */
export function descriptorForm(resource: Pick<ResourceDescriptor, 'resource' | 'metadataOnly' | 'table' | 'projection'>): DescriptorForm {
  const forms: DescriptorForm[] = [];
  if (resource.metadataOnly === true) forms.push('metadata');
  if (resource.table === true) forms.push('table');
  if (resource.projection !== undefined) forms.push('projection');
  if (forms.length > 1)
    throw new InvalidOptionsError(`the descriptor of ${resource.resource} asks for more than one of metadataOnly, table and projection`);
  return forms[0] ?? 'full';
}

/** Throws `InvalidOptionsError` unless `resource` names whole objects: `what` (e.g. `the metadata`) is asked of the full resource. */
export function requireFullResource(resource: ResourceDescriptor, what: string): void {
  const form = descriptorForm(resource);
  if (form !== 'full')
    throw new InvalidOptionsError(`${resource.resource} is already ${NAMES[form]}: ask for ${what} of the full resource`);
}
