import { afterEveryRender, ChangeDetectionStrategy, Component } from '@angular/core';
import { ChangeLog } from './changeLog';
import { NamespaceFilter } from './namespaceFilter';
import { PhaseSummary } from './phaseSummary';
import { PodTable } from './podTable';
import { PodsView } from './podsView';
import { renderStats } from './renderStats';
import { StatusBar } from './statusBar';

/** The page: live pods with a namespace filter, their phases, the informer's status and recent changes. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [StatusBar, NamespaceFilter, PhaseSummary, PodTable, ChangeLog],
  providers: [PodsView],
  template: `
    <header>
      <h1>Live pods</h1>
      <p class="sub">
        <code>&#64;rxinformer/angular</code> signals over a shared informer, through this page's own origin. Zoneless; each view re-renders
        only for the changes it shows.
      </p>
    </header>
    <app-status-bar />
    <div class="controls">
      <app-namespace-filter />
      <app-phase-summary />
    </div>
    <main class="layout">
      <app-pod-table />
      <app-change-log />
    </main>
  `,
})
export class App {
  constructor() {
    afterEveryRender(() => renderStats.passes++);
  }
}
