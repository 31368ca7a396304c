/**
 * Projected resource descriptors: `projected(pods, projection)` names pods as a list view holds
 * them, so that an informer factory makes an informer of projected objects, keyed apart from the
 * full informer of pods (and from other projections), as `metadataOnly(pods)` is.
 */
import { descriptorForm, requireFullResource } from '../descriptorForm.ts';
import { InvalidOptionsError } from '../errors.ts';
import type { KubeObject, Projected, Projection, ResourceDescriptor } from '../types.ts';
import { project } from './project.ts';

/** The object type a descriptor carries. */
type ObjectOf<D> = D extends ResourceDescriptor<infer T> ? T : KubeObject;

/** A resource descriptor for its objects as a projection keeps them. */
export type ProjectedDescriptor<D extends ResourceDescriptor> = Omit<D, '__type' | 'projection'> & {
  /** The projection its informers apply to each object. */
  readonly projection: Projection<ObjectOf<D>>;
  /** Carries the object type only; never set. */
  readonly __type?: Projected<ObjectOf<D>>;
};

/**
 * The projected form of a resource descriptor: an informer of it keeps each object as
 * `projection` (or `project(paths)`) makes it, in the prepare stage, before anything is stored;
 * a factory keys it by the projection's paths, apart from the full informer of the resource.
 * Lists and watches are the full objects' (the server cannot project); the factory's `transform`,
 * if any, runs on the projected object.
 *
 * @example
 * const podRows = factory.informerFor(projected(pods, PRESETS.pods));
 * const withPriority = factory.informerFor(projected(pods, [...PRESET_PATHS.pods, 'spec.priority'])); // another informer
 *
 * Caveat: throws `InvalidOptionsError` for a `metadataOnly()` or `tableRows()` descriptor (each is
 * already a projection of its own), `FieldPathError` for a bad path. A projected descriptor given
 * again replaces its projection.
 */
export function projected<D extends ResourceDescriptor>(
  resource: D,
  projection: Projection<ObjectOf<D>> | Projection | readonly string[],
): ProjectedDescriptor<D> {
  if (descriptorForm(resource) !== 'projection') requireFullResource(resource, 'a projection');
  const compiled = Array.isArray(projection) ? project<ObjectOf<D>>(projection) : (projection as unknown as Projection<ObjectOf<D>>);
  if (typeof compiled !== 'function' || !Array.isArray(compiled.paths) || typeof compiled.key !== 'string')
    throw new InvalidOptionsError('projected() takes a projection made by project(), or an array of field paths');
  return Object.freeze({ ...resource, projection: compiled }) as unknown as ProjectedDescriptor<D>;
}
