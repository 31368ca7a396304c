import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { injectEventHandler } from '@rxinformer/angular';
import type { Delta } from '@rxinformer/core';
import { logLine, type LogLine, type Pod } from './pods';
import { PodsView } from './podsView';
import { renderStats } from './renderStats';

/** Lines kept, newest first, across namespaces. */
const KEPT = 200;
/** Lines shown. */
const SHOWN = 12;

/**
 * The recent changes in the namespace shown, from an event handler of its own (with its lag). A
 * change in another namespace is kept for later but re-renders nothing.
 */
@Component({
  selector: 'app-change-log',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <h2>
      Recent changes <span id="change-count">{{ count() }}</span>
    </h2>
    <p class="lag">
      handler lag <span id="lag">{{ handler.lagMs() }}</span> ms
    </p>
    <ol id="changes">
      @for (line of lines(); track line.id) {
        <li [class]="line.type">
          <time>{{ line.time }}</time> {{ line.type }} {{ line.text }}
        </li>
      }
    </ol>
  `,
})
export class ChangeLog {
  protected readonly view = inject(PodsView);
  readonly #kept: LogLine[] = [];
  readonly #counts = new Map<string, number>();
  #total = 0;
  /** Bumped for a change in the namespace shown: the one edge from the handler to the view. */
  readonly #shownChanged = signal(0);

  protected readonly lines = computed(() => {
    this.#shownChanged();
    const namespace = this.view.namespace();
    return this.#kept.filter((line) => !namespace || line.namespace === namespace).slice(0, SHOWN);
  });
  protected readonly count = computed(() => {
    this.#shownChanged();
    const namespace = this.view.namespace();
    return namespace ? (this.#counts.get(namespace) ?? 0) : this.#total;
  });
  /** Live changes only: the initial list (and the replay of the cache to this late handler) is the table itself. */
  protected readonly handler = injectEventHandler<Pod>(
    this.view.pods,
    {
      onAdd: (pod, initial) => {
        if (!initial) this.#log('Added', pod);
      },
      onUpdate: (old, pod) => {
        if (old !== pod) this.#log('Updated', pod); // the same object twice: a resync or an unchanged relist
      },
      onDelete: ({ lastKnown, finalStateUnknown }) => {
        if (lastKnown) this.#log('Deleted', lastKnown, finalStateUnknown);
      },
    },
    { name: 'change-log' },
  );

  constructor() {
    effect(() => {
      this.lines();
      this.count();
      renderStats.log++;
    });
  }

  #log(type: Delta['type'], pod: Pod, finalStateUnknown = false): void {
    const line = logLine(type, pod, Date.now(), finalStateUnknown);
    this.#kept.unshift(line);
    if (this.#kept.length > KEPT) this.#kept.pop();
    this.#counts.set(line.namespace, (this.#counts.get(line.namespace) ?? 0) + 1);
    this.#total++;
    const shown = untracked(this.view.namespace);
    if (!shown || shown === line.namespace) this.#shownChanged.update((n) => n + 1);
  }
}
