// Lost races, as a live feed: new ones on top, the newest 500 kept. The feed survives switching pages within a
// session, so coming back shows what happened meanwhile rather than starting over.

import { api, query } from './api.js';
import { byId, h, jobLink, mono, muted, timeCell, shortSha, Poller } from './ui.js';

const REFRESH_MS = 2000;
const MAX_ROWS = 500;
const PAGES_PER_TICK = 5; // a long absence is caught up over a few ticks instead of one burst
const LOOKBACK_MS = 60 * 60 * 1000;

const el = byId('view-races');
const tbody = byId('races-table').tBodies[0];
const fresh = () => ({ since: null, cursor: null, seen: new Set() });
let state = fresh();
let poller = null;

const raceKey = (race) => `${race.job_id}/${race.loser?.attempt_id}`;

async function poll() {
  const found = [];
  for (let page = 0; page < PAGES_PER_TICK; page++) {
    const since = state.since ?? new Date(Date.now() - LOOKBACK_MS).toISOString();
    // A cursor continues the listing the last call began; without one, start after the newest race seen.
    const params = state.cursor ? { cursor: state.cursor, limit: 100 } : { since, limit: 100 };
    const body = await api(query('/v1/races', params), { signal: poller.signal });
    const races = body.races ?? [];
    found.push(...races);
    if (races.length) state.since = races[races.length - 1].detected_at;
    state.cursor = body.next_cursor ?? null;
    if (!state.cursor) break;
  }
  prepend(found.filter((race) => !state.seen.has(raceKey(race))));
}

function loser(race) {
  const l = race.loser;
  return l ? h('span', { title: l.attempt_id }, `${l.provider} #${l.number}`) : muted('—');
}

function winner(race) {
  const w = race.winner;
  return w ? h('span', { title: w.attempt_id }, `${w.provider} #${w.number}`) : muted('none');
}

function renderRow(race) {
  return h('tr', { 'data-job-id': race.job_id, class: 'fresh' },
    h('td', {}, timeCell(race.detected_at, { millis: true })),
    h('td', {}, jobLink(race.job_id)),
    h('td', {}, mono(race.owner_id)),
    h('td', {}, loser(race)),
    h('td', {}, winner(race)),
    h('td', { class: 'wrap' }, race.reason ?? '—'),
    h('td', {}, shortSha(race.discarded_result_sha256)));
}

/** races come oldest first; each goes on top, so the newest ends up first. */
function prepend(races) {
  for (const race of races) {
    state.seen.add(raceKey(race));
    tbody.insertBefore(renderRow(race), tbody.firstChild);
  }
  while (tbody.children.length > MAX_ROWS) tbody.lastElementChild.remove();
  if (state.seen.size > MAX_ROWS * 4) trimSeen();
  byId('races-empty').hidden = tbody.children.length > 0;
}

// Only races near `since` can come back, so remembering the recent ones is enough to drop repeats.
function trimSeen() {
  state.seen = new Set([...state.seen].slice(-MAX_ROWS));
}

export const racesView = {
  el,
  activate() {
    byId('races-empty').hidden = tbody.children.length > 0;
    poller = new Poller(poll, REFRESH_MS).start();
  },
  deactivate() {
    poller?.stop();
    for (const tr of tbody.querySelectorAll('tr.fresh')) tr.classList.remove('fresh');
  },
  reset() {
    state = fresh();
    tbody.replaceChildren();
  },
};
