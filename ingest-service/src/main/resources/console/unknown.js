// The UNKNOWN queue: attempts that may or may not have run, oldest first, and the operator's resolve actions
// (also used on the job page).

import { api, query, seg, session } from './api.js';
import { byId, h, ageCell, jobLink, mono, syncRows, showError, Poller, mapLimit } from './ui.js';

const REFRESH_MS = 2000;
const BULK_CONCURRENCY = 4;

export const OUTCOMES = ['FAILED', 'CANCELLED'];

export function resolveAttempt(attemptId, outcome, reason) {
  return api(`/v1/attempts/${seg(attemptId)}/resolve`, { method: 'POST', body: { outcome, reason } });
}

/** "Attempt #2 resolved as FAILED; next attempt #3 on backup" — what the operator's decision set in motion. */
export function describeResolution(number, outcome, answer) {
  const next = answer?.next_attempt;
  const after = next ? `next attempt #${next.number} on ${next.provider}` : `job is ${answer?.job?.status ?? 'unchanged'}`;
  return `Attempt #${number} resolved as ${outcome}; ${after}.`;
}

/** A non-empty reason from input, or null after pointing at the empty field and saying so in status. */
export function requireReason(input, status) {
  const reason = input.value.trim();
  if (reason) return reason;
  status.textContent = 'A reason is required: it is recorded with the resolution.';
  input.focus();
  input.reportValidity();
  return null;
}

/** The two resolve buttons of one attempt; onResolve(outcome) runs on click. */
export function resolveButtons(attemptId, onResolve) {
  return OUTCOMES.map((outcome) => h('button', {
    type: 'button',
    class: `resolve-${outcome.toLowerCase()}`,
    'data-attempt-id': attemptId,
    'data-outcome': outcome,
    title: `Resolve as ${outcome}`,
    on: { click: () => onResolve(outcome) },
  }, outcome));
}

/* ---------- the queue ---------- */

const el = byId('view-unknown');
const tbody = byId('unknown-table').tBodies[0];
const reasonInput = byId('resolve-reason');
const bulkResult = byId('bulk-result');
const selectAll = byId('select-all-unknown');
let attempts = [];
let poller = null;

async function refresh() {
  const page = await api(query('/v1/attempts', { status: 'UNKNOWN', older_than: 'PT0S', limit: 100 }), { signal: poller.signal });
  attempts = page.attempts ?? [];
  render();
  byId('unknown-more').hidden = !page.next_cursor;
}

function renderRow(attempt) {
  const operator = session.isOperator;
  return h('tr', { 'data-attempt-id': attempt.id, 'data-job-id': attempt.job_id },
    operator && h('td', {}, h('input', {
      type: 'checkbox', class: 'select-attempt', value: attempt.id, 'aria-label': `Select attempt ${attempt.id}`,
      on: { change: updateSelectAll },
    })),
    h('td', {}, ageCell(attempt.unknown_at ?? attempt.started_at ?? attempt.created_at)),
    h('td', {}, jobLink(attempt.job_id)),
    h('td', {}, mono(attempt.owner_id)),
    h('td', {}, attempt.provider ?? '—'),
    h('td', { class: 'num' }, `#${attempt.number}`),
    h('td', {}, mono(attempt.idempotency_key, attempt.idempotency_key)),
    operator && h('td', { class: 'actions' }, resolveButtons(attempt.id, (outcome) => resolveOne(attempt, outcome))));
}

function render() {
  syncRows(tbody, attempts, { key: (a) => a.id, render: renderRow });
  byId('unknown-empty').hidden = attempts.length > 0;
  updateSelectAll();
}

const checkboxes = () => [...tbody.querySelectorAll('input.select-attempt')];

function updateSelectAll() {
  const boxes = checkboxes();
  const checked = boxes.filter((box) => box.checked).length;
  selectAll.checked = boxes.length > 0 && checked === boxes.length;
  selectAll.indeterminate = checked > 0 && checked < boxes.length;
}

function setBusy(busy) {
  for (const button of el.querySelectorAll('button')) button.disabled = busy;
}

async function resolveOne(attempt, outcome) {
  const reason = requireReason(reasonInput, bulkResult);
  if (!reason) return;
  setBusy(true);
  try {
    const answer = await resolveAttempt(attempt.id, outcome, reason);
    bulkResult.textContent = describeResolution(attempt.number, outcome, answer);
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
    poller?.now();
  }
}

async function resolveSelected(outcome) {
  const ids = checkboxes().filter((box) => box.checked).map((box) => box.value);
  if (ids.length === 0) { bulkResult.textContent = 'Select at least one attempt.'; return; }
  const reason = requireReason(reasonInput, bulkResult);
  if (!reason) return;
  setBusy(true);
  bulkResult.textContent = `Resolving ${ids.length}…`;
  const outcomes = await mapLimit(ids, BULK_CONCURRENCY, (id) =>
    resolveAttempt(id, outcome, reason).then(() => null, (err) => err));
  setBusy(false);
  if (outcomes.some((err) => err?.unauthorized)) return; // signed out meanwhile
  bulkResult.textContent = summarize(outcomes);
  poller?.now();
}

/** "3 resolved, 1 failed: <detail>"; identical details are told once. */
function summarize(outcomes) {
  const failures = outcomes.filter(Boolean);
  const resolved = outcomes.length - failures.length;
  if (failures.length === 0) return `${resolved} resolved`;
  const details = [...new Set(failures.map((err) => err.detail ?? String(err)))];
  return `${resolved} resolved, ${failures.length} failed: ${details.join('; ')}`;
}

selectAll.addEventListener('change', () => {
  for (const box of checkboxes()) box.checked = selectAll.checked;
  selectAll.indeterminate = false;
});
byId('bulk-resolve-failed').addEventListener('click', () => resolveSelected('FAILED'));
byId('bulk-resolve-cancelled').addEventListener('click', () => resolveSelected('CANCELLED'));

export const unknownView = {
  el,
  activate() {
    poller = new Poller(refresh, REFRESH_MS).start();
  },
  deactivate() {
    poller?.stop();
    // Keep no stale buttons around: button.resolve-* must only match the page on screen.
    tbody.replaceChildren();
    attempts = [];
  },
  reset() {
    reasonInput.value = '';
    bulkResult.textContent = '';
  },
};
