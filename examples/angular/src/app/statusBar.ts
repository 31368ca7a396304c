import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { statusLine } from './pods';
import { PodsView } from './podsView';

/** The informer's condition: phase, sync, relists, reconnects, and the retry and last error while failing. */
@Component({
  selector: 'app-status-bar',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `<div id="status" [attr.data-phase]="view.pods.status().phase">{{ line() }}</div>`,
})
export class StatusBar {
  protected readonly view = inject(PodsView);
  protected readonly line = computed(() => statusLine(this.view.pods.status(), this.view.reconnects()));
}
