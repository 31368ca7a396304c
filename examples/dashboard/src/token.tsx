/**
 * The user's bearer token: the hub authenticates each WebSocket by it (a ServiceAccount token from
 * `kubectl create token`, or any token your cluster's TokenReview accepts). Given once in the URL's
 * fragment (`/#token=…`, never sent to a server) or in the form, kept in this tab's sessionStorage.
 */
import { useState, type FormEvent } from 'react';

/** Where the tab keeps the token. */
export const TOKEN_KEY = 'rxinformer-dashboard-token';

/** The token of this tab: from `#token=…` (then removed from the address bar), else the one kept. */
export function takeToken(): string | undefined {
  const fromFragment = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromFragment) {
    sessionStorage.setItem(TOKEN_KEY, fromFragment);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

/** Forgets the token and shows the sign-in form again. */
export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
}

/** Asks for a token. */
export function SignIn() {
  const [token, setToken] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, token.trim());
    location.reload();
  };
  return (
    <form className="sign-in" onSubmit={submit}>
      <h1>rxinformer dashboard</h1>
      <label>
        Bearer token <input type="password" value={token} onChange={(e) => setToken(e.target.value)} autoFocus />
      </label>
      <button type="submit" disabled={token.trim() === ''}>
        Sign in
      </button>
      <p>
        For a ServiceAccount: <code>kubectl create token NAME -n NAMESPACE</code>
      </p>
    </form>
  );
}
