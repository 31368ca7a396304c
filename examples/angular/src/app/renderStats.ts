// What the page has rendered so far, for its Chromium test and the benchmark (which read it as
// `window.rxinformerExample.renders`): change detection passes, and the views that re-rendered.
export const renderStats = {
  /** Change detection passes (`afterEveryRender`). */
  passes: 0,
  /** Renders of the pod table: each new list of rows. */
  table: 0,
  /** Renders of the phase summary. */
  summary: 0,
  /** Renders of the change log. */
  log: 0,
};
