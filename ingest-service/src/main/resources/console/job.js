// One job: its state, attempts and timeline, followed live over the event stream until it can no longer change.

import { api, seg, session } from './api.js';
import {
  byId, h, badge, mono, muted, timeCell, formatTime, formatMs, shortSha, prettyJson, compactJson,
  syncRows, showError,
} from './ui.js';
import { follow } from './sse.js';
import { resolveAttempt, resolveButtons, requireReason, describeResolution } from './unknown.js';

const RESOLVABLE = new Set(['UNKNOWN', 'STARTING']);

const el = byId('view-job');
const timeline = byId('job-timeline');
const attemptsBody = byId('job-attempts').tBodies[0];
const fresh = () => ({ id: null, job: null, seen: new Set(), lastEventId: null, stream: null, loading: false, again: false });
let state = fresh();
let abort = null;

/* ---------- the job ---------- */

async function loadJob() {
  const id = state.id;
  const job = await api(`/v1/jobs/${seg(id)}`, { signal: abort.signal });
  if (id !== state.id) return;
  state.job = job;
  renderJob(job);
}

/** Events arrive in bursts; at most one GET of the job runs at a time, and one more follows if asked meanwhile. */
function reloadJob() {
  if (state.loading) { state.again = true; return; }
  state.loading = true;
  loadJob().catch(showError).finally(() => {
    state.loading = false;
    if (state.again) { state.again = false; reloadJob(); }
  });
}

/** The status badge; null while the job is loading, so no test or eye mistakes a placeholder for a status. */
function setStatus(status) {
  const node = byId('job-status');
  node.textContent = status ?? '…';
  node.className = status ? `badge status-${status}` : 'badge';
  if (status) node.dataset.status = status; else delete node.dataset.status;
}

function setText(id, value) {
  byId(id).textContent = value === null || value === undefined || value === '' ? '—' : String(value);
}

function setNode(id, ...nodes) { byId(id).replaceChildren(...nodes); }

function renderJob(job) {
  setStatus(job.status);
  setText('job-id', job.id);
  setText('job-owner', job.owner_id);
  setText('job-key', job.idempotency_key);
  setText('job-contract', job.contract);
  setText('job-target', job.target);
  setText('job-fallbacks', (job.fallbacks ?? []).join(', '));
  setText('job-version', job.version);
  setText('job-completed-by', job.completed_by);
  setNode('job-created', timeCell(job.created_at, { millis: true }));
  setNode('job-updated', timeCell(job.updated_at, { millis: true }));
  setNode('job-finished', timeCell(job.finished_at, { millis: true }));
  const cert = job.target_certification;
  setNode('job-certification', !cert ? muted('—')
    : h('span', {}, h('span', { class: `badge cert-${cert.certified ? 'passed' : 'failed'}` }, cert.certified ? 'certified' : 'not certified'),
      cert.reason ? ` ${cert.reason}` : ''));
  renderResult(job);
  byId('job-request').textContent = prettyJson(job.request ?? null);
  syncRows(attemptsBody, job.attempts ?? [], { key: (a) => a.id, render: renderAttempt });
}

function renderResult(job) {
  const node = byId('job-result');
  if (job.error) {
    node.dataset.kind = 'error';
    node.textContent = prettyJson({ error: job.error });
  } else if (job.result !== null && job.result !== undefined) {
    node.dataset.kind = 'result';
    node.textContent = prettyJson(job.result);
  } else {
    node.dataset.kind = 'none';
    node.textContent = job.finished_at ? 'null' : 'No result yet.';
  }
}

function renderAttempt(attempt) {
  const error = attempt.error;
  const notes = [
    attempt.certification_override && `certification override: ${attempt.certification_override}`,
    attempt.lost_reason && `lost: ${attempt.lost_reason}`,
    // A retry after a refusal that ran nothing waits out its backoff before it starts.
    attempt.not_before && `retry: not before ${attempt.not_before}`,
  ].filter(Boolean);
  return h('tr', { 'data-attempt-id': attempt.id, 'data-status': attempt.status },
    h('td', { class: 'num' }, `#${attempt.number}`),
    h('td', {}, mono(attempt.id, attempt.id)),
    h('td', {}, attempt.provider ?? '—'),
    h('td', {}, badge(attempt.status)),
    session.isOperator && h('td', { class: 'actions' },
      RESOLVABLE.has(attempt.status) ? resolveButtons(attempt.id, (outcome) => resolve(attempt, outcome)) : ''),
    h('td', {}, timeCell(attempt.created_at, { millis: true })),
    h('td', {}, timeCell(attempt.started_at, { millis: true })),
    h('td', {}, timeCell(attempt.soft_deadline, { millis: true })),
    h('td', {}, timeCell(attempt.finished_at, { millis: true })),
    h('td', { class: 'wrap' }, error ? `${error.code}: ${error.message}${error.retryable ? ' (retryable)' : ''}` : muted('—')),
    h('td', {}, mono(attempt.provider_request_id)),
    h('td', { class: 'wrap' }, notes.join('; '), attempt.discarded_result_sha256 && [' discarded ', shortSha(attempt.discarded_result_sha256)]));
}

async function resolve(attempt, outcome) {
  const reason = requireReason(byId('job-resolve-reason'), byId('job-resolve-result'));
  if (!reason) return;
  const buttons = attemptsBody.querySelectorAll(`button[data-attempt-id="${CSS.escape(attempt.id)}"]`);
  buttons.forEach((b) => { b.disabled = true; });
  try {
    const answer = await resolveAttempt(attempt.id, outcome, reason);
    byId('job-resolve-result').textContent = describeResolution(attempt.number, outcome, answer);
    if (answer?.job && answer.job.id === state.id) { state.job = answer.job; renderJob(answer.job); }
  } catch (err) {
    showError(err);
    buttons.forEach((b) => { b.disabled = false; });
  }
}

/* ---------- the timeline ---------- */

function fact(label, value) {
  if (value === null || value === undefined || value === '') return null;
  return h('span', { class: 'fact' }, label ? h('span', { class: 'label' }, label) : null, value);
}

function renderEvent(event) {
  const error = event.error;
  return h('li', { 'data-type': event.type, 'data-attempt-number': event.attempt_number ?? null, 'data-event-id': event.id },
    h('time', { datetime: event.at, title: event.at }, formatTime(event.at, { millis: true })),
    h('span', { class: 'ev-type' }, event.type),
    fact('', event.attempt_number !== undefined && event.attempt_number !== null ? `#${event.attempt_number}` : null),
    fact('', event.provider),
    event.status ? badge(event.status) : null,
    event.job_status ? badge(event.job_status) : null,
    fact('latency', event.latency_ms !== null && event.latency_ms !== undefined ? formatMs(event.latency_ms) : null),
    fact('certification override', event.certification_override),
    fact('lost', event.lost_reason),
    event.discarded_result_sha256 ? fact('discarded', shortSha(event.discarded_result_sha256)) : null,
    event.type === 'operator.action' ? fact('', `${event.actor ?? '?'} ${event.action ?? ''}`.trim()) : null,
    fact('reason', event.reason),
    error ? fact('error', `${error.code}: ${error.message}`) : null,
    event.type === 'job.finished' && 'result' in event ? fact('result', h('code', {}, compactJson(event.result))) : null);
}

/** Appends an event unless it was seen (the JSON timeline and a resumed stream may overlap). */
function addEvent(event) {
  if (!event || typeof event !== 'object') return false;
  if (event.id !== undefined && event.id !== null) {
    if (state.seen.has(event.id)) return false;
    state.seen.add(event.id);
    state.lastEventId = event.id;
  }
  timeline.append(renderEvent(event));
  if (event.type === 'job.finished' && event.job_status) setStatus(event.job_status);
  return true;
}

async function loadTimeline() {
  const id = state.id;
  const body = await api(`/v1/jobs/${seg(id)}/events`, { signal: abort.signal });
  if (id !== state.id) return;
  for (const event of body.events ?? []) addEvent(event);
}

const STREAM_LABELS = { connecting: 'connecting…', live: '● live', reconnecting: 'reconnecting…', ended: 'final', failed: 'not followed' };

function startStream() {
  state.stream = follow(`/v1/jobs/${seg(state.id)}/events`, {
    lastEventId: state.lastEventId,
    signal: abort.signal,
    onFrame(frame) {
      let event;
      try { event = JSON.parse(frame.data); } catch { return; } // a frame that is not an Event is not ours to show
      if (addEvent(event)) reloadJob();
    },
    onState(s) {
      const node = byId('job-stream');
      node.textContent = STREAM_LABELS[s] ?? s;
      node.dataset.state = s;
    },
    onError: showError,
  });
}

async function open(id) {
  state = { ...fresh(), id };
  timeline.replaceChildren();
  attemptsBody.replaceChildren();
  for (const node of el.querySelectorAll('dd, #job-result, #job-request, #job-resolve-result')) node.textContent = '';
  setStatus(null);
  setText('job-id', id);
  try {
    await Promise.all([loadJob(), loadTimeline()]);
  } catch (err) {
    showError(err);
    if (err.status === 404 || err.name === 'AbortError' || err.unauthorized) return;
  }
  // Followed even when finished: a late attempt may still be discarded. The service answers 204 when nothing can change.
  if (id === state.id && !abort.signal.aborted) startStream();
}

export const jobView = {
  el,
  activate({ id }) {
    abort = new AbortController();
    open(id);
  },
  deactivate() {
    abort?.abort(); // stops the stream and any request in flight
    state.stream?.stop();
    state = fresh();
    timeline.replaceChildren();
    attemptsBody.replaceChildren();
  },
  reset() {
    byId('job-resolve-reason').value = '';
  },
};
