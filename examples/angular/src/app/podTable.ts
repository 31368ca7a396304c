import { ChangeDetectionStrategy, Component, effect, inject } from '@angular/core';
import { PodsView } from './podsView';
import { renderStats } from './renderStats';

/**
 * The pods shown, one row per pod tracked by its key: a new list of rows re-renders the rows that
 * changed and adds or removes the others; the rows that stay are not touched.
 */
@Component({
  selector: 'app-pod-table',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <table>
      <thead>
        <tr>
          <th>Namespace</th>
          <th>Name</th>
          <th>Phase</th>
          <th>Node</th>
        </tr>
      </thead>
      <tbody id="pods">
        @for (row of view.rows(); track row.key) {
          <tr [attr.data-key]="row.key" [attr.data-phase]="row.phase">
            <td class="namespace">{{ row.namespace }}</td>
            <td class="name">{{ row.name }}</td>
            <td class="phase">{{ row.phase }}</td>
            <td class="node">{{ row.node }}</td>
          </tr>
        } @empty {
          <tr class="empty">
            <td colspan="4">{{ view.pods.synced() ? 'No pods here.' : 'Loading the pods…' }}</td>
          </tr>
        }
      </tbody>
    </table>
  `,
})
export class PodTable {
  protected readonly view = inject(PodsView);

  constructor() {
    effect(() => {
      this.view.rows();
      renderStats.table++;
    });
  }
}
