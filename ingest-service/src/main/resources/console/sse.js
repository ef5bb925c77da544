// Server-Sent Events over fetch(). EventSource cannot send an Authorization header, so the console reads the
// stream itself: the parser follows the WHATWG event-stream rules, the follower reconnects with Last-Event-ID.

import { request } from './api.js';

/** Turns text chunks into frames {type, id, data}; comments (":...") and unknown fields are skipped. */
export class SseParser {
  constructor(onFrame, onRetry = () => {}) {
    this.onFrame = onFrame;
    this.onRetry = onRetry;
    this.pending = '';
    this.reset();
  }

  reset() {
    this.type = '';
    this.data = [];
    this.id = null;
  }

  push(chunk) {
    let text = this.pending + chunk;
    // A chunk ending in CR may be the first half of CRLF: hold the CR until the next chunk tells.
    let held = '';
    if (text.endsWith('\r')) { held = '\r'; text = text.slice(0, -1); }
    const lines = text.split(/\r\n|\r|\n/);
    this.pending = lines.pop() + held;
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === '') { this.dispatch(); return; }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
  }

  dispatch() {
    // An id-only frame still moves the cursor forward, as it does for EventSource.
    if (this.data.length > 0 || this.id !== null) {
      this.onFrame({ type: this.type || 'message', id: this.id, data: this.data.join('\n') });
    }
    this.reset();
  }
}

const IDLE_TIMEOUT_MS = 45_000; // the service sends a heartbeat comment every 15 s; three missed ones mean a dead link
const MAX_BACKOFF_MS = 15_000;

/**
 * Follows path as an event stream until the service says there is nothing more (it closes a stream once the job
 * can no longer change, and answers a reconnect with 204), stop() is called or signal aborts.
 * onState receives 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed'.
 */
export function follow(path, { lastEventId = null, signal, onFrame, onState = () => {}, onError = () => {} }) {
  let stopped = false;
  let connection = null;
  let retryMs = 2000;
  const stop = () => { stopped = true; connection?.abort(); };
  signal?.addEventListener('abort', stop, { once: true });

  const connect = async () => {
    connection = new AbortController();
    const headers = { Accept: 'text/event-stream' };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    const response = await request(path, { headers, signal: connection.signal });
    if (response.status === 204 || !response.body) return false;
    onState('live');
    const parser = new SseParser((frame) => {
      if (frame.id !== null) lastEventId = frame.id;
      if (!stopped) onFrame(frame);
    }, (ms) => { retryMs = ms; });
    await pump(response.body, parser, connection);
    return true;
  };

  (async () => {
    let backoff = retryMs;
    onState('connecting');
    while (!stopped) {
      try {
        const hadStream = await connect();
        if (!hadStream) { onState('ended'); return; }
        backoff = retryMs; // a stream that was served resets the backoff
      } catch (err) {
        if (stopped || err.unauthorized) return;
        // 4xx will not get better by asking again (no such job, not allowed); anything else is a drop.
        if (err.status >= 400 && err.status < 500) { onError(err); onState('failed'); return; }
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
      if (stopped) return;
      // The stream closed (job finished) or dropped: ask again; a 204 will say it is over.
      onState('reconnecting');
      await sleep(backoff, signal);
    }
  })();

  return { stop };
}

async function pump(body, parser, connection) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let idle = null;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => connection.abort(), IDLE_TIMEOUT_MS);
  };
  arm();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      arm();
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
  } finally {
    clearTimeout(idle);
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
