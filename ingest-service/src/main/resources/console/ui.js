// DOM and formatting helpers shared by the views. All API text reaches the page as text nodes or
// attribute values, never as markup.

export const byId = (id) => document.getElementById(id);

/** h('td', {class: 'mono', 'data-x': 1, on: {click: fn}}, 'text', child) */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'on') for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const muted = (text) => h('span', { class: 'muted' }, text);
export const mono = (text, title) => h('span', { class: 'mono', title }, text ?? '—');

export function badge(status) {
  return h('span', { class: `badge status-${status}`, 'data-status': status }, status);
}

export function jobHref(id) { return `#/jobs/${encodeURIComponent(id)}`; }

/** Ids are shown whole: operators copy them into queries and tickets. */
export function jobLink(id) {
  return h('a', { class: 'mono', href: jobHref(id), 'data-job-id': id }, id);
}

export function shortSha(sha) {
  if (!sha) return muted('—');
  return h('span', { class: 'mono', title: sha }, `${String(sha).slice(0, 12)}…`);
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** Local time: HH:MM:SS today, with the date otherwise; millis where ordering within a second matters. */
export function formatTime(iso, { millis = false } = {}) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  let clock = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (millis) clock += `.${pad(d.getMilliseconds(), 3)}`;
  const today = new Date();
  if (d.toDateString() === today.toDateString()) return clock;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock}`;
}

export function timeCell(iso, options) {
  if (!iso) return muted('—');
  return h('time', { datetime: iso, title: iso }, formatTime(iso, options));
}

export function formatAge(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor(s / 3600) % 24}h`;
}

/** An age that keeps counting: the ticker below rewrites every .age element once a second. */
export function ageCell(iso) {
  const since = Date.parse(iso);
  if (Number.isNaN(since)) return muted('—');
  return h('time', { class: 'age', datetime: iso, title: iso, 'data-since': since }, formatAge((Date.now() - since) / 1000));
}

setInterval(() => {
  for (const el of document.querySelectorAll('time.age[data-since]')) {
    el.textContent = formatAge((Date.now() - Number(el.dataset.since)) / 1000);
  }
}, 1000);

export function formatMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(Number(ms))) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export const prettyJson = (value) => JSON.stringify(value, null, 2);

export function compactJson(value, max = 120) {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An idempotency key. crypto.randomUUID exists only in secure contexts; the console may be served over plain http. */
export function newKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const rowMeta = new WeakMap();

/**
 * Makes tbody show one row per item, in order. A row whose item is unchanged (same signature) is kept as it is,
 * so refreshing every 2 s neither flickers nor loses a ticked checkbox or a focused button.
 */
export function syncRows(tbody, items, { key, render, signature = (item) => JSON.stringify(item) }) {
  const existing = new Map();
  for (const tr of tbody.children) {
    const meta = rowMeta.get(tr);
    if (meta) existing.set(meta.key, { tr, sig: meta.sig });
  }
  const rows = items.map((item) => {
    const k = key(item);
    const sig = signature(item);
    const old = existing.get(k);
    if (old && old.sig === sig) return old.tr;
    const tr = render(item);
    rowMeta.set(tr, { key: k, sig });
    return tr;
  });
  rows.forEach((tr, i) => {
    if (tbody.children[i] !== tr) tbody.insertBefore(tr, tbody.children[i] ?? null);
  });
  while (tbody.children.length > rows.length) tbody.lastElementChild.remove();
}

/* ---------- error banner ---------- */

/** Shows an error's detail in #error; aborted requests and 401s (which already signed out) are not errors to show. */
export function showError(err) {
  if (!err || err.name === 'AbortError' || err.unauthorized) return;
  byId('error-text').textContent = err.detail ?? err.message ?? String(err);
  byId('error').hidden = false;
}

export function hideError() { byId('error').hidden = true; }

/* ---------- polling ---------- */

const pollers = new Set();

/**
 * Calls fn now and then every intervalMs after it settles (never overlapping itself), skipping ticks while the
 * tab is hidden. A failure streak shows one banner, not one every interval. Its signal aborts when it stops: fn's
 * requests pass it, so a view left (or a sign-out) cancels what is in flight.
 */
export class Poller {
  constructor(fn, intervalMs) {
    this.fn = fn;
    this.intervalMs = intervalMs;
    this.running = false;
    this.inFlight = false;
    this.again = false;
    this.failing = false;
    this.timer = null;
    this.abort = new AbortController();
  }

  /** Aborts once this poller stops. */
  get signal() {
    return this.abort.signal;
  }

  start() {
    if (this.running) return this;
    this.running = true;
    if (this.abort.signal.aborted) this.abort = new AbortController(); // started again after a stop
    pollers.add(this);
    // The first call once the caller's statement is done, so that `poller = new Poller(fn).start()` has assigned
    // the poller whose signal fn's requests pass.
    queueMicrotask(() => this.tick());
    return this;
  }

  stop() {
    this.running = false;
    clearTimeout(this.timer);
    pollers.delete(this);
    this.abort.abort();
  }

  /** Run as soon as possible (after the call in flight, if any), e.g. after a filter change or an action. */
  now() {
    if (!this.running) return;
    if (this.inFlight) { this.again = true; return; }
    clearTimeout(this.timer);
    this.tick();
  }

  async tick() {
    if (!this.running) return;
    if (!document.hidden) {
      this.inFlight = true;
      try {
        await this.fn();
        this.failing = false;
      } catch (err) {
        if (!this.failing) showError(err);
        this.failing = err.name !== 'AbortError';
      } finally {
        this.inFlight = false;
      }
    }
    if (!this.running) return;
    const delay = this.again ? 0 : this.intervalMs;
    this.again = false;
    this.timer = setTimeout(() => this.tick(), delay);
  }
}

export function stopAllPollers() {
  for (const poller of [...pollers]) poller.stop();
}

/** Runs fn over items with at most `limit` in flight, so a bulk action does not flood the service. */
export async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
