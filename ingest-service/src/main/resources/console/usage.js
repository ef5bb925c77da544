// What providers billed (GET /v1/usage): calls, tokens and cost summed per group over a span of UTC days. Owners see
// their own; operators see every owner's. Refreshed every few seconds while shown, so a finished job's cost appears.

import { api, query } from './api.js';
import { byId, h, mono, Poller, showError } from './ui.js';

const REFRESH_MS = 5000;
const DIMENSIONS = ['owner', 'provider', 'model', 'day'];

const el = byId('view-usage');
const form = byId('usage-form');
const table = byId('usage-table');
let poller = null;
let abort = null;

const utcDay = (offsetDays) => new Date(Date.now() + offsetDays * 86400000).toISOString().slice(0, 10);

function params() {
  const groupBy = byId('usage-group-by').value;
  return { from: byId('usage-from').value, to: byId('usage-to').value, group_by: groupBy || undefined };
}

async function load() {
  const body = await api(query('/v1/usage', params()), { signal: abort.signal });
  render(body);
}

function sums(row) {
  return [
    h('td', { class: 'num' }, String(row.calls)),
    h('td', { class: 'num' }, String(row.input_tokens)),
    h('td', { class: 'num' }, String(row.cached_input_tokens)),
    h('td', { class: 'num' }, String(row.output_tokens)),
    h('td', { class: 'num mono' }, `$${row.cost_usd}`),
    h('td', { class: 'num' }, String(row.unpriced_calls)),
  ];
}

function render(body) {
  const groups = body.group_by ?? [];
  table.tHead.replaceChildren(h('tr', {}, ...groups.map((g) => h('th', {}, g)), h('th', {}, 'Calls'),
    h('th', {}, 'Input tokens'), h('th', {}, 'Cached'), h('th', {}, 'Output tokens'), h('th', {}, 'Cost'),
    h('th', {}, 'Unpriced calls')));
  const rows = (body.rows ?? []).map((row) => h('tr', {}, ...groups.map((g) => h('td', {}, mono(row[g]))),
    ...sums(row)));
  table.tBodies[0].replaceChildren(...rows);
  table.tFoot.replaceChildren(h('tr', { id: 'usage-total' }, ...groups.map((g, i) => h('th', {}, i === 0 ? 'Total' : '')),
    ...sums(body.total)));
  byId('usage-scope').textContent = body.owner ? `owner ${body.owner}` : 'every owner';
  byId('usage-total-cost').textContent = `$${body.total.cost_usd}`;
}

export const usageView = {
  el,
  activate() {
    abort = new AbortController();
    if (!byId('usage-from').value) byId('usage-from').value = utcDay(-29);
    if (!byId('usage-to').value) byId('usage-to').value = utcDay(1);
    poller = new Poller(load, REFRESH_MS).start();
  },
  deactivate() {
    poller?.stop();
    abort?.abort();
  },
  reset() {
    byId('usage-from').value = '';
    byId('usage-to').value = '';
    table.tBodies[0].replaceChildren();
  },
};

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!abort) return;
  load().catch(showError);
});

byId('usage-group-by').replaceChildren(h('option', { value: '' }, 'total only'),
  ...DIMENSIONS.map((d) => h('option', { value: d }, d)),
  h('option', { value: 'provider,day' }, 'provider, day'),
  h('option', { value: 'owner,provider' }, 'owner, provider'));
