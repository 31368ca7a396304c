import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createInformerFactory } from '@rxinformer/core';
import { hubListerWatcherSource } from '@rxinformer/hub/browser';
import { InformerProvider } from '@rxinformer/react';
import { Dashboard } from './Dashboard.tsx';
import { KINDS } from './kinds.ts';
import { SignIn, takeToken, TOKEN_KEY } from './token.tsx';

const root = createRoot(document.getElementById('root')!);

if (takeToken() === undefined) {
  root.render(<SignIn />);
} else {
  // One WebSocket to the hub on this page's origin carries every list and watch of the page.
  const source = hubListerWatcherSource('/hub', { token: () => sessionStorage.getItem(TOKEN_KEY) ?? undefined });
  const factory = createInformerFactory(source);
  // Every kind live from the start: the picker switches views, not watches.
  for (const kind of KINDS) factory.informerFor(kind.resource);
  root.render(
    <StrictMode>
      <InformerProvider factory={factory}>
        <Dashboard />
      </InformerProvider>
    </StrictMode>,
  );
}
