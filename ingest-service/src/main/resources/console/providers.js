// Providers: certification state per contract and version, recent failures, and re-certification for operators.

import { api, contracts, session } from './api.js';
import { byId, h, jobLink, mono, muted, timeCell, formatMs, syncRows, showError, Poller } from './ui.js';

const REFRESH_MS = 5000; // certifications change rarely; failures are also on the job and races pages

const el = byId('view-providers');
const tbody = byId('providers-table').tBodies[0];
const resultLine = byId('providers-result');
const busy = new Set(); // "provider\0contract" pairs being certified right now
let providers = [];
let catalogue = [];
let poller = null;

const busyKey = (provider, contract) => `${provider}\u0000${contract}`;

async function refresh() {
  const [body, known] = await Promise.all([
    api('/v1/providers', { signal: poller.signal }),
    contracts().catch(() => []), // without the catalogue, the providers' own certifications still list contracts
  ]);
  providers = body.providers ?? [];
  catalogue = known;
  render();
}

/** For each contract the provider has been or could be certified for: the newest result per contract version. */
function certificationsByContract(provider) {
  const byContract = new Map(catalogue.map((c) => [c.id, new Map()]));
  for (const cert of provider.certifications ?? []) {
    if (!byContract.has(cert.contract)) byContract.set(cert.contract, new Map());
    const versions = byContract.get(cert.contract);
    const seen = versions.get(cert.contract_version);
    if (!seen || String(cert.finished_at ?? '') > String(seen.finished_at ?? '')) versions.set(cert.contract_version, cert);
  }
  return [...byContract.entries()].map(([contract, versions]) => ({
    contract,
    certs: [...versions.values()].sort((a, b) => Number(b.contract_version) - Number(a.contract_version)),
  }));
}

function certBadge(cert) {
  const state = cert.passed ? 'passed' : 'failed';
  return h('span', { class: 'cert-version', 'data-contract-version': cert.contract_version },
    h('span', { class: `badge cert-${state}`, title: cert.id }, `v${cert.contract_version} ${state}`),
    ' ', timeCell(cert.finished_at));
}

function recertifyButton(provider, contract) {
  const working = busy.has(busyKey(provider, contract));
  return h('button', {
    type: 'button', class: working ? 'recertify busy' : 'recertify',
    'data-provider': provider, 'data-contract': contract, disabled: working, 'aria-busy': working ? 'true' : null,
    on: { click: () => recertify(provider, contract) },
  }, working ? 'Certifying…' : 'Re-certify');
}

function renderCertifications(provider) {
  const groups = certificationsByContract(provider);
  if (groups.length === 0) return muted('no contracts');
  return h('ul', { class: 'certs' }, groups.map(({ contract, certs }) =>
    h('li', { 'data-contract': contract },
      h('span', { class: 'contract' }, contract),
      certs.length ? certs.map(certBadge) : h('span', { class: 'badge cert-none' }, 'not certified'),
      session.isOperator ? recertifyButton(provider.id, contract) : null)));
}

function renderFailures(provider) {
  const failures = provider.recent_failures ?? [];
  if (failures.length === 0) return muted('none');
  return h('ul', { class: 'failures' }, failures.map((f) =>
    h('li', { 'data-attempt-id': f.attempt_id }, timeCell(f.at), ' ', mono(f.error_code), ' ', jobLink(f.job_id))));
}

// A provider that kept refusing cools down: new jobs with a certified fallback start there until then.
function coolingBadge(provider) {
  if (!provider.cooling_until) return null;
  return h('span', { class: 'badge cooling', title: `cooling down until ${provider.cooling_until}: new jobs with a`
    + ' certified fallback start there' }, 'cooling down');
}

function renderRow(provider) {
  return h('tr', { 'data-provider': provider.id, 'data-cooling': provider.cooling_until ? 'true' : null },
    h('td', {}, mono(provider.id), ' ', coolingBadge(provider)),
    h('td', {}, provider.protocol ?? '—'),
    h('td', {}, mono(provider.model)),
    h('td', {}, renderCertifications(provider)),
    h('td', {}, renderFailures(provider)));
}

function render() {
  syncRows(tbody, providers, {
    key: (p) => p.id,
    render: renderRow,
    // A row also changes when one of its buttons turns busy or idle, or the catalogue adds a contract.
    signature: (p) => JSON.stringify([p, [...busy].filter((k) => k.startsWith(`${p.id}\u0000`)), catalogue.map((c) => c.id)]),
  });
  byId('providers-empty').hidden = providers.length > 0;
}

function report(cert) {
  const failed = (cert.checks ?? []).filter((check) => !check.passed);
  const took = cert.started_at && cert.finished_at ? ` in ${formatMs(Date.parse(cert.finished_at) - Date.parse(cert.started_at))}` : '';
  const head = `${cert.provider} · ${cert.contract} v${cert.contract_version}: ${cert.passed ? 'passed' : 'FAILED'}`
    + ` (${cert.repetitions ?? '?'} repetitions${took})`;
  resultLine.className = cert.passed ? 'ok' : 'bad';
  resultLine.replaceChildren(head, ...failed.map((check) => h('div', { class: 'check' }, `${check.name}: ${check.summary ?? 'failed'}`)));
  resultLine.hidden = false;
}

async function recertify(provider, contract) {
  const key = busyKey(provider, contract);
  if (busy.has(key)) return;
  busy.add(key);
  render();
  try {
    // Certification runs the contract's checks against the provider; it can take several seconds.
    // The answer lists one stored result per (provider, contract) certified: here exactly one.
    // A worker runs it; when it takes longer than the service waits (202), the result lands in the list later.
    const answer = await api('/v1/certifications', { method: 'POST', body: { provider, contract } });
    for (const cert of answer.certifications ?? []) report(cert);
    if (answer.status === 'running') {
      resultLine.className = '';
      resultLine.replaceChildren(`${provider} · ${contract}: still running on a worker (request ${answer.request_id});`
        + ' its result appears in this list when it is stored.');
      resultLine.hidden = false;
    }
  } catch (err) {
    showError(err);
  } finally {
    busy.delete(key);
    if (poller?.running) { render(); poller?.now(); }
  }
}

export const providersView = {
  el,
  activate() {
    poller = new Poller(refresh, REFRESH_MS).start();
  },
  deactivate() {
    poller?.stop();
  },
  reset() {
    busy.clear();
    providers = [];
    tbody.replaceChildren();
    resultLine.hidden = true;
  },
};
