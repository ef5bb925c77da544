// The "Submit a job" panel: POST /v1/jobs with an idempotency key, then open the job.

import { contracts, request } from './api.js';
import { byId, h, jobHref, newKey, showError } from './ui.js';

const form = byId('submit-form');
const contractSelect = byId('submit-contract');
const keyInput = byId('submit-key');
const result = byId('submit-result');
let catalogue = [];
let loaded = false;

async function loadContracts() {
  catalogue = await contracts();
  const previous = contractSelect.value;
  contractSelect.replaceChildren(...catalogue.map((c) =>
    h('option', { value: c.id }, c.version !== undefined ? `${c.id} (v${c.version})` : c.id)));
  if (catalogue.some((c) => c.id === previous)) contractSelect.value = previous;
  describeSchema();
  loaded = true;
}

/** Shows the chosen contract's variables schema, so the JSON can be written without looking it up. */
function describeSchema() {
  const contract = catalogue.find((c) => c.id === contractSelect.value);
  byId('submit-schema').textContent = contract?.variables_schema ? `variables: ${JSON.stringify(contract.variables_schema)}` : '';
}

function splitList(text) {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}

function readBody() {
  let variables;
  try {
    variables = JSON.parse(byId('submit-variables').value);
  } catch (err) {
    throw new Error(`Variables are not valid JSON: ${err.message}`);
  }
  return {
    contract: contractSelect.value,
    variables,
    target: byId('submit-target').value.trim(),
    fallbacks: splitList(byId('submit-fallbacks').value),
  };
}

function showSubmitted(job, replayed) {
  result.className = replayed ? 'replayed' : 'created';
  result.replaceChildren(
    replayed ? 'Already submitted: same job ' : 'Created job ',
    h('a', { href: jobHref(job.id), 'data-job-id': job.id, class: 'mono' }, job.id));
}

async function submit(event) {
  event.preventDefault();
  const key = keyInput.value.trim();
  let body;
  try {
    if (!key) throw new Error('An idempotency key is required.');
    body = readBody();
  } catch (err) {
    showError(err);
    return;
  }
  const button = byId('submit-job');
  button.disabled = true;
  try {
    const response = await request('/v1/jobs', { method: 'POST', headers: { 'Idempotency-Key': key }, body });
    const job = await response.json();
    const replayed = response.headers.get('Idempotent-Replayed') === 'true' || response.status === 200;
    showSubmitted(job, replayed);
    keyInput.value = newKey(); // the next submission is a new job unless the operator types a key on purpose
    location.hash = jobHref(job.id);
  } catch (err) {
    result.replaceChildren();
    showError(err);
  } finally {
    button.disabled = false;
  }
}

form.addEventListener('submit', submit);
contractSelect.addEventListener('change', describeSchema);

export const submitPanel = {
  show() {
    if (!keyInput.value) keyInput.value = newKey();
    if (!loaded) loadContracts().catch(showError);
  },
  reset() {
    form.reset(); // back to the defaults written in the page
    keyInput.value = '';
    contractSelect.replaceChildren();
    result.replaceChildren();
    catalogue = [];
    loaded = false;
  },
};
