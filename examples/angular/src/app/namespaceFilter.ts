import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { PodsView } from './podsView';

/** The namespace filter: all namespaces, or one of those that have pods. */
@Component({
  selector: 'app-namespace-filter',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <label>
      Namespace
      <select id="namespace" (change)="select($event)">
        <option value="" [selected]="view.namespace() === ''">all namespaces</option>
        @for (namespace of view.namespaces(); track namespace) {
          <option [value]="namespace" [selected]="view.namespace() === namespace">{{ namespace }}</option>
        }
      </select>
    </label>
  `,
})
export class NamespaceFilter {
  protected readonly view = inject(PodsView);

  protected select(event: Event): void {
    this.view.namespace.set((event.target as HTMLSelectElement).value);
  }
}
