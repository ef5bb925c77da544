// Entry point: sign-in and sign-out, which controls a role may see, and the hash router that switches views.

import { api, request, tokenStore, session, setUnauthorizedHandler, resetCaches } from './api.js';
import { byId, hideError, showError, stopAllPollers } from './ui.js';
import { jobsView } from './jobs.js';
import { jobView } from './job.js';
import { unknownView } from './unknown.js';
import { providersView } from './providers.js';
import { racesView } from './races.js';
import { usageView } from './usage.js';
import { submitPanel } from './submit.js';
import { chart } from './chart.js';

const views = {
  jobs: jobsView, job: jobView, unknown: unknownView, providers: providersView, races: racesView, usage: usageView,
};

const routes = [
  { pattern: /^#\/jobs\/?$/, view: 'jobs', nav: 'nav-jobs' },
  { pattern: /^#\/jobs\/([^/]+)\/?$/, view: 'job', nav: 'nav-jobs', params: (m) => ({ id: decodeURIComponent(m[1]) }) },
  { pattern: /^#\/unknown\/?$/, view: 'unknown', nav: 'nav-unknown' },
  { pattern: /^#\/providers\/?$/, view: 'providers', nav: 'nav-providers' },
  { pattern: /^#\/races\/?$/, view: 'races', nav: 'nav-races' },
  { pattern: /^#\/usage\/?$/, view: 'usage', nav: 'nav-usage' },
];

let current = null; // {route, view, key}

/* ---------- routing ---------- */

function match(hash) {
  for (const route of routes) {
    const m = route.pattern.exec(hash);
    if (!m) continue;
    try {
      return { route, params: route.params ? route.params(m) : {} };
    } catch { return null; } // a malformed %-escape in the hash
  }
  return null;
}

function navigate() {
  if (!session.signedIn) return;
  const found = match(location.hash);
  if (!found) { location.replace('#/jobs'); return; } // also the default for an empty hash
  const { route, params } = found;
  const key = `${route.view}:${params.id ?? ''}`;
  if (current?.key === key) return;
  current?.view.deactivate();
  for (const [name, view] of Object.entries(views)) view.el.hidden = name !== route.view;
  for (const { nav } of routes) {
    const link = byId(nav);
    const active = nav === route.nav;
    link.classList.toggle('active', active);
    if (active) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  // The submit panel sits beside the job list and a job, so a submission stays in view while it runs.
  const withSubmit = route.view === 'jobs' || route.view === 'job';
  byId('submit-panel').hidden = !withSubmit;
  byId('workspace').classList.toggle('with-aside', withSubmit);
  if (withSubmit) submitPanel.show();
  current = { key, view: views[route.view] };
  current.view.activate(params);
}

/* ---------- session ---------- */

function applyRoles() {
  byId('whoami').textContent = session.owner;
  byId('whoami-roles').textContent = session.roles.length ? `(${session.roles.join(', ')})` : '';
  for (const el of document.querySelectorAll('[data-requires="operate"]')) el.hidden = !session.isOperator;
}

function enter(whoami) {
  session.set(whoami);
  applyRoles();
  byId('sign-in-view').hidden = true;
  byId('app').hidden = false;
  // The chart's counters span every owner's jobs: /v1/stats answers operators only.
  if (session.isOperator) chart.start();
  navigate();
}

/** Ends the session: no token, no polling, no stream, nothing of the last user left in the page. */
function signOut(message = '') {
  tokenStore.clear();
  session.clear();
  current?.view.deactivate();
  current = null;
  for (const view of Object.values(views)) view.reset();
  submitPanel.reset();
  chart.stop();
  stopAllPollers();
  resetCaches();
  hideError();
  byId('app').hidden = true;
  byId('sign-in-view').hidden = false;
  const error = byId('sign-in-error');
  error.textContent = message;
  error.hidden = !message;
  const token = byId('token');
  token.value = '';
  token.focus();
}

async function signIn(event) {
  event.preventDefault();
  const token = byId('token').value.trim();
  const error = byId('sign-in-error');
  if (!token) { error.textContent = 'Enter an API token.'; error.hidden = false; return; }
  const button = byId('sign-in');
  button.disabled = true;
  error.hidden = true;
  try {
    // expire401: false — a refused token here is this form's error, not a lost session.
    const response = await request('/v1/whoami', { token, expire401: false });
    const whoami = await response.json();
    tokenStore.set(token);
    byId('token').value = '';
    enter(whoami);
  } catch (err) {
    error.textContent = err.detail ?? String(err);
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

/** On reload the tab still holds its token: ask who it is again rather than trusting stored roles. */
async function boot() {
  setUnauthorizedHandler((detail) => {
    if (session.signedIn || tokenStore.get()) signOut(`Your token was not accepted: ${detail}`);
  });
  byId('sign-in-form').addEventListener('submit', signIn);
  byId('sign-out').addEventListener('click', () => signOut());
  byId('error-dismiss').addEventListener('click', hideError);
  window.addEventListener('hashchange', navigate);

  if (!tokenStore.get()) { signOut(); return; }
  try {
    enter(await api('/v1/whoami'));
  } catch (err) {
    if (!err.unauthorized) signOut(`Could not check the saved token: ${err.detail ?? err}`);
  }
}

boot().catch(showError);
