// The gateway's HTTP API, as the dashboard calls it: every call carries the bearer token the
// user signed in with (kept for the browser tab only), so the dashboard has exactly the
// REST API's authentication and no cookie another site could ride on.

const tokenKey = 'strait.token';

// root is the gateway's base path: the dashboard is served under <root>ui/.
export const root = location.pathname.replace(/ui\/.*$/, '');

export class AuthError extends Error {}

export function token() {
  return sessionStorage.getItem(tokenKey) || '';
}

export function setToken(t) {
  if (t) sessionStorage.setItem(tokenKey, t);
  else sessionStorage.removeItem(tokenKey);
}

// call sends a request to the gateway and returns its JSON answer; a 401 throws AuthError,
// another failure an Error with the gateway's message.
export async function call(path, opts = {}) {
  const headers = { Accept: 'application/json', ...(opts.headers || {}) };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  const resp = await fetch(root + path.replace(/^\//, ''), { ...opts, headers });
  const text = await resp.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (e) {
    body = null;
  }
  if (resp.status === 401) throw new AuthError((body && body.message) || 'authentication required');
  if (!resp.ok) throw new Error((body && body.message) || `${resp.status} ${resp.statusText}`);
  return body;
}

export function post(path, value) {
  return call(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
}
