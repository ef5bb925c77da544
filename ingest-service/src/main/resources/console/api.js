// The one way the console talks to the service: bearer token, JSON in and out, problem+json errors,
// and a central reaction to 401 (the token is gone or expired, so the whole session is).

const TOKEN_KEY = 'onejob.token';

// sessionStorage only: the token must not outlive the tab, travel in a URL or ride along as a cookie.
export const tokenStore = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** Who the calls are made as, from GET /v1/whoami. Roles decide which controls are shown, not what is allowed. */
export const session = {
  owner: null,
  roles: [],
  get signedIn() { return this.owner !== null; },
  get isOperator() { return this.roles.includes('operate'); },
  set(whoami) {
    this.owner = String(whoami.owner_id);
    this.roles = Array.isArray(whoami.roles) ? whoami.roles.map(String) : [];
  },
  clear() { this.owner = null; this.roles = []; },
};

/** An answer that was not 2xx, carrying the problem document (or one made up for a non-problem answer). */
export class ApiError extends Error {
  constructor(problem, status) {
    super(problem.detail || problem.title || `The service answered HTTP ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
    this.unauthorized = false;
  }
  get detail() { return this.message; }
}

let onUnauthorized = () => {};
/** console.js registers the sign-out here; keeping it a hook avoids a circular import. */
export function setUnauthorizedHandler(handler) { onUnauthorized = handler; }

/**
 * fetch() with the session's token; resolves to the Response when it is 2xx, throws ApiError otherwise.
 * A 401 also ends the session, unless expire401 is false (the sign-in check reports it itself).
 */
export async function request(path, {
  method = 'GET', body, headers = {}, signal, token = tokenStore.get(), expire401 = true,
} = {}) {
  const head = new Headers(headers);
  if (token) head.set('Authorization', `Bearer ${token}`);
  if (!head.has('Accept')) head.set('Accept', 'application/json');
  let payload;
  if (body !== undefined) {
    head.set('Content-Type', 'application/json');
    payload = JSON.stringify(body);
  }
  let response;
  try {
    // No cookies exist for this API; 'omit' makes that explicit. no-store: lists must never come from a cache.
    response = await fetch(path, { method, headers: head, body: payload, signal, credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError({ title: 'Network error', detail: `The service cannot be reached (${err.message}).` }, 0);
  }
  if (response.ok) return response;
  const error = new ApiError(await readProblem(response), response.status);
  if (response.status === 401 && expire401) {
    error.unauthorized = true;
    onUnauthorized(error.detail);
  }
  throw error;
}

/** request() and parse the JSON body (null for 204). */
export async function api(path, options) {
  const response = await request(path, options);
  return response.status === 204 ? null : response.json();
}

// Only a problem (or plain JSON) document is shown to the operator; any other body might be a stack trace.
async function readProblem(response) {
  const type = response.headers.get('Content-Type') || '';
  if (/^application\/(problem\+)?json/i.test(type)) {
    try {
      const problem = await response.json();
      if (problem && typeof problem === 'object') return problem;
    } catch { /* fall through to the generic problem */ }
  }
  return { title: response.statusText || 'Error', status: response.status, detail: `The service answered HTTP ${response.status}.` };
}

/** path?params, leaving out empty values so the service sees "no filter" rather than "filter by ''". */
export function query(path, params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** One path segment, so an id can never change which resource is addressed. */
export const seg = (value) => encodeURIComponent(String(value));

let contractsPromise = null;
/** The contract catalogue changes only with a deployment: fetched once per session, shared by the views. */
export function contracts() {
  contractsPromise ??= api('/v1/contracts')
    .then((body) => body.contracts ?? [])
    .catch((err) => { contractsPromise = null; throw err; });
  return contractsPromise;
}

export function resetCaches() { contractsPromise = null; }
