import { ChangeDetectionStrategy, Component, computed, effect, inject } from '@angular/core';
import { PodsView } from './podsView';
import { renderStats } from './renderStats';

/** How many of the pods shown are in each phase, and how many the cache holds. */
@Component({
  selector: 'app-phase-summary',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p class="counts">
      <span id="shown">{{ shown() }}</span> shown of <span id="cached">{{ view.cached() }}</span> cached
    </p>
    <ul id="summary">
      @for (entry of view.summary(); track entry.phase) {
        <li [attr.data-phase]="entry.phase">
          {{ entry.phase }} <b>{{ entry.count }}</b>
        </li>
      }
    </ul>
  `,
})
export class PhaseSummary {
  protected readonly view = inject(PodsView);
  protected readonly shown = computed(() => this.view.rows().length);

  constructor() {
    effect(() => {
      this.shown();
      this.view.summary();
      this.view.cached();
      renderStats.summary++;
    });
  }
}
