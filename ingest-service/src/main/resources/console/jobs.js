// The job list: filters, a live first page every 2 s, and "load more" through the cursor.

import { api, query, session } from './api.js';
import { byId, h, badge, jobLink, mono, timeCell, syncRows, showError, Poller } from './ui.js';
import { chart } from './chart.js';

const PAGE_SIZE = 50;
const REFRESH_MS = 2000;

const el = byId('view-jobs');
const tbody = byId('jobs-table').tBodies[0];
const moreButton = byId('jobs-more');

const fresh = () => ({ filters: {}, jobs: [], cursor: null, extraPages: false });
let state = fresh();
let poller = null;

/** datetime-local is a local wall-clock time without zone; the API wants an RFC 3339 instant. */
function toInstant(value) {
  if (!value) return '';
  const date = new Date(value); // a date-time form without offset is read as local time
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

function readFilters() {
  return {
    status: byId('filter-status').value,
    provider: byId('filter-provider').value.trim(),
    key_prefix: byId('filter-key-prefix').value.trim(),
    created_after: toInstant(byId('filter-created-after').value),
    created_before: toInstant(byId('filter-created-before').value),
    owner: session.isOperator ? byId('filter-owner').value.trim() : '',
  };
}

function fetchPage(filters, cursor) {
  return api(query('/v1/jobs', { ...filters, limit: PAGE_SIZE, cursor }), { signal: poller.signal });
}

/**
 * Replaces the first page with what the service says now. Rows from pages loaded with "more" stay (with their
 * last known state) unless they reappear in the first page, whose newer state then wins.
 */
async function refreshFirstPage() {
  const filters = state.filters;
  const page = await fetchPage(filters, null);
  if (filters !== state.filters) return; // the filters changed while this was in flight
  const jobs = page.jobs ?? [];
  if (state.extraPages) {
    const onFirst = new Set(jobs.map((job) => job.id));
    state.jobs = [...jobs, ...state.jobs.filter((job) => !onFirst.has(job.id))];
  } else {
    state.jobs = jobs;
    state.cursor = page.next_cursor ?? null;
  }
  render();
}

async function loadMore() {
  if (!state.cursor) return;
  const filters = state.filters;
  moreButton.disabled = true;
  try {
    const page = await fetchPage(filters, state.cursor);
    if (filters !== state.filters) return;
    const known = new Set(state.jobs.map((job) => job.id));
    state.jobs.push(...(page.jobs ?? []).filter((job) => !known.has(job.id)));
    state.cursor = page.next_cursor ?? null;
    state.extraPages = true;
    render();
  } catch (err) {
    showError(err);
  } finally {
    moreButton.disabled = false;
  }
}

function applyFilters(event) {
  event.preventDefault();
  state = { ...fresh(), filters: readFilters() };
  tbody.replaceChildren(); // old rows belong to other filters: do not show them while the new page loads
  byId('jobs-empty').hidden = true;
  moreButton.hidden = true;
  poller?.now();
}

function renderRow(job) {
  return h('tr', { 'data-job-id': job.id, 'data-status': job.status },
    h('td', {}, timeCell(job.created_at)),
    h('td', {}, jobLink(job.id)),
    h('td', {}, mono(job.owner_id)),
    h('td', {}, mono(job.idempotency_key, job.idempotency_key)),
    h('td', {}, badge(job.status)),
    h('td', {}, job.target ?? '—'));
}

function render() {
  syncRows(tbody, state.jobs, { key: (job) => job.id, render: renderRow });
  byId('jobs-empty').hidden = state.jobs.length > 0;
  moreButton.hidden = !state.cursor;
}

byId('job-filters').addEventListener('submit', applyFilters);
moreButton.addEventListener('click', loadMore);

export const jobsView = {
  el,
  activate() {
    poller = new Poller(refreshFirstPage, REFRESH_MS).start();
    chart.show();
  },
  deactivate() {
    poller?.stop();
    chart.hide();
  },
  reset() {
    state = fresh();
    tbody.replaceChildren();
    byId('job-filters').reset();
  },
};
