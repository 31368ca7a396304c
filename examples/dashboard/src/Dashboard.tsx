/**
 * The dashboard: a status bar, a kind picker with live counts, a namespace filter, and the table of
 * the kind picked. Every hook reads a shared informer of the provider's factory; each re-renders
 * only when what it reads changes, at most once per animation frame.
 */
import { useMemo, useState } from 'react';
import { KubeApiError, type KubeObject } from '@rxinformer/core';
import { useInformerStatus, useList, type ListFilter } from '@rxinformer/react';
import { KINDS, type KindView } from './kinds.ts';
import { StatusBar } from './StatusBar.tsx';
import { signOut } from './token.tsx';

const ALL = '';

export function Dashboard() {
  const [kindId, setKindId] = useState(KINDS[0].id);
  const [namespace, setNamespace] = useState(ALL);
  const kind = KINDS.find((k) => k.id === kindId) ?? KINDS[0];
  return (
    <>
      <header>
        <h1>rxinformer dashboard</h1>
        <StatusBar />
        <button type="button" className="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav className="kinds">
        {KINDS.map((k) => (
          <KindButton key={k.id} kind={k} picked={k.id === kind.id} onPick={() => setKindId(k.id)} />
        ))}
      </nav>
      <NamespaceFilter kind={kind} value={namespace} onChange={setNamespace} />
      <Table kind={kind} namespace={kind.resource.namespaced && namespace !== ALL ? namespace : undefined} />
    </>
  );
}

/** A kind in the picker, with how many objects of it the user may see. */
function KindButton({ kind, picked, onPick }: { kind: KindView; picked: boolean; onPick: () => void }) {
  const count = useVisibleList(kind).length;
  return (
    <button type="button" data-kind={kind.id} aria-pressed={picked} onClick={onPick}>
      {kind.title} <span className="count">{count}</span>
    </button>
  );
}

/** The namespaces to filter by: those the cluster lists, and those of the objects at hand (a user may see objects of namespaces they may not list). */
function NamespaceFilter({ kind, value, onChange }: { kind: KindView; value: string; onChange: (ns: string) => void }) {
  const namespaces = useVisibleList(KINDS.find((k) => k.id === 'namespaces')!);
  const objects = useVisibleList(kind);
  const names = useMemo(() => {
    const all = new Set(namespaces.map((n) => n.metadata?.name ?? ''));
    for (const o of objects) all.add(o.metadata?.namespace ?? '');
    all.delete('');
    return [...all].sort();
  }, [namespaces, objects]);
  return (
    <label className="namespace">
      Namespace{' '}
      <select name="namespace" value={value} onChange={(e) => onChange(e.target.value)} disabled={!kind.resource.namespaced}>
        <option value={ALL}>all namespaces</option>
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The rows of `kind` (in `namespace`, or all), sorted by namespace and name. */
function Table({ kind, namespace }: { kind: KindView; namespace: string | undefined }) {
  const objects = useVisibleList(kind, { namespace });
  const rows = useMemo(() => [...objects].sort((a, b) => keyOf(a).localeCompare(keyOf(b))), [objects]);
  const now = Date.now();
  return (
    <table data-kind={kind.id}>
      <thead>
        <tr>
          {kind.resource.namespaced && <th>Namespace</th>}
          <th>Name</th>
          {kind.columns.map((c) => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((o) => {
          const cells = kind.cells(o, now);
          return (
            <tr key={o.metadata?.uid ?? keyOf(o)} data-key={keyOf(o)} className={kind.health(o, cells)}>
              {kind.resource.namespaced && <td>{o.metadata?.namespace}</td>}
              <td>{o.metadata?.name}</td>
              {cells.map((cell, i) => (
                <td key={kind.columns[i]}>{cell}</td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const NONE: readonly KubeObject[] = [];

/**
 * The objects of `kind` the user may see now: none while the hub refuses the kind (403: never
 * granted, or a Role revoked), though the tab's cache still holds what it was sent before.
 */
function useVisibleList(kind: KindView, filter?: ListFilter): readonly KubeObject[] {
  const objects = useList(kind.resource, filter);
  const { lastError } = useInformerStatus(kind.resource);
  return lastError instanceof KubeApiError && lastError.code === 403 ? NONE : objects;
}

const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
