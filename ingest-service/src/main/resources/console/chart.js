// The live chart: /v1/stats sampled every 2 s while signed in (so the 5-minute window is full whenever the jobs
// page is opened), drawn on a canvas as three stacked panels, since jobs/s, milliseconds and a count share no scale.

import { api } from './api.js';
import { byId, Poller } from './ui.js';

const SAMPLE_MS = 2000;
const WINDOW_MS = 5 * 60 * 1000;

const canvas = byId('chart-canvas');
const nowText = byId('chart-now');
const oldestText = byId('chart-oldest');
const unknownCount = byId('nav-unknown-count');

const PANELS = [
  { title: 'jobs/s', series: [{ key: 'finished', color: '--series-finished' }, { key: 'submitted', color: '--series-submitted' }] },
  { title: 'submit p99 ms', series: [{ key: 'p99', color: '--series-p99' }] },
  { title: 'UNKNOWN', series: [{ key: 'unknown', color: '--series-unknown' }] },
];

let points = []; // {t, finished, submitted, p99, unknown}; rates are null until two samples exist
let previous = null;
let poller = null;
let visible = false;

/** Counters are cumulative: a rate is the difference of two samples over the time between them. */
function rate(now, before, field) {
  const dt = (now.t - before.t) / 1000;
  const delta = Number(now[field]) - Number(before[field]);
  if (!(dt > 0) || !(delta >= 0)) return null; // a restart resets counters: skip, do not draw a negative rate
  return delta / dt;
}

function addSample(stats) {
  const sample = {
    t: Date.parse(stats.at) || Date.now(),
    submittedTotal: stats.jobs_submitted_total,
    finishedTotal: stats.jobs_finished_total,
  };
  if (previous && sample.t <= previous.t) return; // the same sample twice
  points.push({
    t: sample.t,
    finished: previous ? rate(sample, previous, 'finishedTotal') : null,
    submitted: previous ? rate(sample, previous, 'submittedTotal') : null,
    p99: numberOrNull(stats.submit_latency_ms?.p99),
    unknown: numberOrNull(stats.unknown_attempts),
    oldestUnknown: numberOrNull(stats.oldest_unknown_seconds),
  });
  previous = sample;
  points = points.filter((p) => p.t >= sample.t - WINDOW_MS);
}

const numberOrNull = (v) => (v === null || v === undefined || !Number.isFinite(Number(v)) ? null : Number(v));

async function sample() {
  addSample(await api('/v1/stats'));
  describeNow();
  if (visible) draw();
}

function describeNow() {
  const last = points[points.length - 1];
  if (!last) return;
  const r = (v) => (v === null ? '–' : v.toFixed(1));
  const text = `finished ${r(last.finished)}/s · submitted ${r(last.submitted)}/s · `
    + `p99 ${last.p99 === null ? '–' : Math.round(last.p99)} ms · UNKNOWN ${last.unknown ?? '–'}`;
  nowText.textContent = text;
  canvas.setAttribute('aria-label', `Last 5 minutes; now ${text}`);
  oldestText.textContent = last.unknown > 0 && last.oldestUnknown !== null ? `(oldest UNKNOWN waits ${Math.round(last.oldestUnknown)} s)` : '';
  unknownCount.textContent = last.unknown ?? '';
  unknownCount.hidden = !(last.unknown > 0);
}

/* ---------- drawing ---------- */

/** 1, 2, 5 × 10^n at or above v, so axis labels stay round. */
function niceCeil(v) {
  if (!(v > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * magnitude).find((c) => c >= v);
}

const cssVar = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

/** Keeps the canvas buffer at its on-screen size times the pixel ratio, so lines stay crisp. */
function fitCanvas() {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  return ratio;
}

function draw() {
  if (canvas.clientWidth === 0) return; // not laid out (hidden)
  const ratio = fitCanvas();
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  ctx.clearRect(0, 0, width, height);
  const end = points.length ? points[points.length - 1].t : Date.now();
  const frame = { left: 48, right: width - 8, start: end - WINDOW_MS, end };
  const axisHeight = 14;
  const panelHeight = (height - axisHeight) / PANELS.length;
  PANELS.forEach((panel, i) => drawPanel(ctx, panel, { ...frame, top: i * panelHeight + 12, bottom: (i + 1) * panelHeight - 4 }));
  drawTimeAxis(ctx, frame, height - 2);
}

function drawPanel(ctx, panel, box) {
  const values = panel.series.flatMap((s) => points.map((p) => p[s.key])).filter((v) => v !== null);
  const max = niceCeil(Math.max(0, ...values));
  const x = (t) => box.left + ((t - box.start) / (box.end - box.start)) * (box.right - box.left);
  const y = (v) => box.bottom - (v / max) * (box.bottom - box.top);

  ctx.strokeStyle = cssVar('--chart-grid');
  ctx.lineWidth = 1;
  ctx.strokeRect(box.left + 0.5, box.top + 0.5, box.right - box.left, box.bottom - box.top);
  ctx.fillStyle = cssVar('--chart-text');
  ctx.font = '10px system-ui, sans-serif';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'top';
  ctx.fillText(String(max), box.left - 4, box.top);
  ctx.textBaseline = 'bottom';
  ctx.fillText('0', box.left - 4, box.bottom);
  ctx.textAlign = 'left';
  ctx.fillText(panel.title, box.left + 4, box.top - 1);

  for (const series of panel.series) {
    ctx.strokeStyle = cssVar(series.color);
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let drawing = false;
    for (const p of points) {
      const v = p[series.key];
      if (v === null) { drawing = false; continue; } // a gap stays a gap
      if (drawing) ctx.lineTo(x(p.t), y(v)); else ctx.moveTo(x(p.t), y(v));
      drawing = true;
    }
    ctx.stroke();
  }
}

function drawTimeAxis(ctx, frame, baseline) {
  ctx.fillStyle = cssVar('--chart-text');
  ctx.textBaseline = 'bottom';
  ctx.textAlign = 'center';
  for (let minutes = 5; minutes >= 0; minutes--) {
    const t = frame.end - minutes * 60_000;
    const x = frame.left + ((t - frame.start) / (frame.end - frame.start)) * (frame.right - frame.left);
    ctx.fillText(minutes ? `-${minutes}m` : 'now', Math.min(Math.max(x, frame.left + 8), frame.right - 10), baseline);
  }
}

new ResizeObserver(() => { if (visible) draw(); }).observe(canvas);

export const chart = {
  start() {
    poller ??= new Poller(sample, SAMPLE_MS);
    poller.start();
  },
  stop() {
    poller?.stop();
    points = [];
    previous = null;
    nowText.textContent = 'waiting for samples…';
    oldestText.textContent = '';
    unknownCount.hidden = true;
    canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  },
  show() { visible = true; draw(); },
  hide() { visible = false; },
};
