// Strait's dashboard: the job list, a job's live DAG with its checkpoints and restarts, and
// the cluster's runners and slots. Pages are drawn from the gateway's REST API and refreshed
// every two seconds while they are shown.

import { call, post, token, setToken, AuthError } from './api.js';
import { el, num, short, bytes, ms, time, state, pct } from './format.js';
import { drawGraph } from './graph.js';

const refreshEvery = 2000;

// put replaces a node's children, leaving out the absent ones (replaceChildren would write
// "null").
function put(parent, ...children) {
  parent.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
const main = document.getElementById('main');
let settings = { temporalUI: '', namespace: 'default', version: '' };
let generation = 0; // a route change stops the previous page's refreshes

function signIn(message) {
  const input = el('input', { id: 'token', type: 'password', placeholder: 'bearer token', autocomplete: 'off' });
  const form = el('form', { class: 'panel signin', id: 'signin' },
    el('h1', { text: 'Sign in' }),
    el('p', { class: 'muted', text: 'This gateway asks for a token: the same bearer token its REST API takes.' }),
    message ? el('p', { class: 'error', text: message }) : null,
    input,
    el('button', { class: 'primary', type: 'submit', id: 'signin-submit', text: 'Sign in' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    setToken(input.value.trim());
    route();
  });
  put(main, form);
  document.getElementById('signout').hidden = true;
  input.focus();
}

// page runs a page's draw function now and every refreshEvery while the page is shown.
function page(draw) {
  const gen = ++generation;
  const tick = async () => {
    if (gen !== generation) return;
    try {
      await draw(() => gen === generation);
    } catch (e) {
      if (gen !== generation) return;
      if (e instanceof AuthError) {
        generation++;
        signIn(token() ? 'The token was refused: ' + e.message : '');
        return;
      }
      showError(e);
    }
    if (gen === generation) setTimeout(tick, document.hidden ? refreshEvery * 5 : refreshEvery);
  };
  tick();
}

function showError(e) {
  let box = document.getElementById('page-error');
  if (!box) {
    box = el('p', { id: 'page-error', class: 'error' });
    main.prepend(box);
  }
  box.textContent = String(e.message || e);
}

function clearError() {
  const box = document.getElementById('page-error');
  if (box) box.remove();
}

function temporalLink(jobId) {
  if (!settings.temporalUI) return null;
  const q = encodeURIComponent(`WorkflowId="strait-job-${jobId}"`);
  return el('a', { href: `${settings.temporalUI}/namespaces/${encodeURIComponent(settings.namespace)}/workflows?query=${q}`, target: '_blank', rel: 'noopener', text: 'Temporal' });
}

// ---- the job list ----

const runningStates = new Set(['CREATED', 'INITIALIZING', 'PENDING', 'SCHEDULED', 'RUNNING', 'FAILING', 'DOING_SAVEPOINT', 'CANCELING']);

function jobsPage() {
  const filter = { state: sessionStorage.getItem('strait.filter.state') || 'all', name: '' };
  const stateSel = el('select', { id: 'state-filter' },
    ...[['all', 'All'], ['running', 'Running'], ['finished', 'Finished'], ['failed', 'Failed'], ['canceled', 'Canceled']]
      .map(([v, t]) => el('option', { value: v, text: t, selected: v === filter.state })));
  const nameIn = el('input', { id: 'name-filter', type: 'search', placeholder: 'name or id' });
  const body = el('tbody', { id: 'jobs' });
  let last = [];
  const paint = () => {
    const q = nameIn.value.trim().toLowerCase();
    const rows = last.filter((j) => {
      const st = j.jobStatus;
      const ok = filter.state === 'all' || (filter.state === 'running' ? runningStates.has(st) : filter.state === 'finished' ? st === 'FINISHED' || st === 'SAVEPOINT_DONE' : st === filter.state.toUpperCase());
      return ok && (!q || (j.jobName || '').toLowerCase().includes(q) || j.jobId.includes(q));
    });
    put(body, ...rows.map((j) => el('tr', { 'data-job': j.jobId },
      el('td', {}, el('a', { href: `#/jobs/${j.jobId}`, text: j.jobId })),
      el('td', { text: j.jobName }),
      el('td', {}, state(j.jobStatus)),
      el('td', { text: j.createTime || '' }),
      el('td', { text: j.finishTime || '' }),
      el('td', { class: 'num', text: num(j.metrics && j.metrics.SourceReceivedCount) }),
      el('td', { class: 'num', text: num(j.metrics && j.metrics.SinkWriteCount) }),
      el('td', {}, temporalLink(j.jobId)))));
    if (!rows.length) body.append(el('tr', {}, el('td', { colspan: 8, class: 'muted', text: last.length ? 'No job matches.' : 'No jobs yet.' })));
  };
  stateSel.addEventListener('change', () => {
    filter.state = stateSel.value;
    sessionStorage.setItem('strait.filter.state', filter.state);
    paint();
  });
  nameIn.addEventListener('input', paint);
  put(main, 
    el('h1', { text: 'Jobs' }),
    el('div', { class: 'filters' }, stateSel, nameIn),
    el('div', { class: 'panel' }, el('table', {},
      el('thead', {}, el('tr', {}, ...['Job', 'Name', 'State', 'Created', 'Finished', 'Rows read', 'Rows written', ''].map((h, i) => el('th', { class: i === 5 || i === 6 ? 'num' : null, text: h })))),
      body)));
  page(async (current) => {
    const [running, finished] = await Promise.all([call('running-jobs'), call('finished-jobs')]);
    if (!current()) return;
    clearError();
    last = [...running, ...finished.slice().reverse()];
    paint();
  });
}

// ---- a job ----

function jobPage(id, tab) {
  const head = el('div', { id: 'job-head' });
  const body = el('div', { id: 'job-body' });
  const tabs = el('div', { class: 'tabs' },
    el('a', { href: `#/jobs/${id}`, class: tab === 'config' ? null : 'on', text: 'Overview' }),
    el('a', { href: `#/jobs/${id}/config`, class: tab === 'config' ? 'on' : null, id: 'config-tab', text: 'Config' }));
  put(main, head, tabs, body);
  let confirming = null;
  const actions = el('div', { class: 'actions', id: 'job-actions' });
  const stop = async (savepoint) => {
    confirming = null;
    try {
      await post('stop-job', { jobId: id, isStopWithSavePoint: savepoint });
      put(actions, el('span', { class: 'muted', id: 'stop-sent', text: savepoint ? 'Savepoint asked for; the job stops after it.' : 'Cancel sent.' }));
    } catch (e) {
      if (e instanceof AuthError) return signIn(e.message);
      showError(e);
    }
  };
  const drawActions = (running) => {
    if (!running) {
      put(actions, );
      return;
    }
    if (confirming) {
      put(actions, el('span', { class: 'confirm' },
        confirming === 'cancel' ? `Cancel job ${id}?` : `Take a savepoint and stop job ${id}?`,
        el('button', { id: 'confirm-yes', class: 'danger', onclick: () => stop(confirming === 'savepoint'), text: 'Yes' }),
        el('button', { id: 'confirm-no', onclick: () => { confirming = null; drawActions(true); }, text: 'No' })));
      return;
    }
    if (actions.querySelector('#stop-sent')) return;
    put(actions, 
      el('button', { id: 'savepoint', onclick: () => { confirming = 'savepoint'; drawActions(true); }, text: 'Savepoint & stop' }),
      el('button', { id: 'cancel', class: 'danger', onclick: () => { confirming = 'cancel'; drawActions(true); }, text: 'Cancel' }));
  };
  if (tab === 'config') {
    page(async (current) => {
      const c = await call(`job-config/${id}`);
      if (!current()) return;
      clearError();
      put(head, el('h1', {}, 'Job ', el('a', { href: `#/jobs/${id}`, text: id }), c.file ? ` · ${c.file}` : ''));
      put(body, 
        el('p', { class: 'muted', text: 'The config as submitted, its secrets masked.' }),
        el('pre', { class: 'config', id: 'config', text: c.config }),
        c.vars && Object.keys(c.vars).length ? el('pre', { class: 'config', text: Object.entries(c.vars).map(([k, v]) => `${k} = ${v}`).join('\n') }) : null);
      generation++; // a config does not change
    });
    return;
  }
  page(async (current) => {
    const j = await call(`job-graph/${id}`);
    if (!current()) return;
    clearError();
    const running = !['FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE', 'UNKNOWABLE'].includes(j.jobStatus);
    put(head, 
      el('div', { class: 'actions' },
        el('h1', { id: 'job-title' }, `${j.jobName} `, el('span', { class: 'muted', text: `#${j.jobId}` })),
        el('span', { class: 'grow' }), actions),
      el('div', { class: 'meta' },
        state(j.jobStatus),
        j.mode ? el('span', { text: j.mode }) : null,
        el('span', { text: `created ${j.createTime}` }),
        j.finishTime ? el('span', { text: `finished ${j.finishTime}` }) : null,
        el('span', { id: 'job-rows', text: `${num(j.counters.rowsRead)} rows read · ${num(j.counters.rowsWritten)} written` }),
        j.temporalUrl ? el('a', { href: j.temporalUrl, target: '_blank', rel: 'noopener', id: 'temporal-link', text: 'Workflow in Temporal' }) : null,
        j.live ? el('span', { text: `live · ${new Date(j.sampledAt).toLocaleTimeString()}` }) : null),
      j.errorMsg ? el('p', { class: 'error', id: 'job-error', text: j.errorMsg }) : null,
      ...(j.liveErrors || []).map((e) => el('p', { class: 'muted', text: 'Live numbers: ' + e })));
    drawActions(running);
    const sections = [
      el('div', { class: 'graph', id: 'graph' }, drawGraph(j)),
      el('div', { class: 'legend' },
        el('span', {}, el('i', { style: 'background: var(--busy-hi)' }), 'busy: time its tasks spent on rows'),
        el('span', {}, el('i', { style: 'background: var(--idle)' }), 'backpressured: time waiting on a full downstream'),
        el('span', {}, el('i', { style: 'background: var(--bad)' }), 'exchange backpressured over 50% (its consumer is the bottleneck)')),
    ];
    for (const p of j.pipelines) sections.push(...pipelinePanel(p));
    if (j.warnings && j.warnings.length) sections.push(el('h2', { text: 'Warnings' }), el('ul', {}, ...j.warnings.map((w) => el('li', { text: w }))));
    put(body, ...sections);
  });
}

function pipelinePanel(p) {
  const cps = p.checkpoints;
  const out = [el('h2', {}, `Pipeline ${p.id} `, state(p.state))];
  const rows = cps.recent.map((c) => el('tr', { 'data-checkpoint': c.id },
    el('td', { class: 'num', text: c.id + (c.savepoint ? ' (savepoint)' : '') }),
    el('td', {}, state(c.state)),
    el('td', { text: time(c.triggered) }),
    el('td', { class: 'num', text: c.state === 'IN_PROGRESS' ? '' : ms(c.durationMs) }),
    el('td', { class: 'num', text: c.state === 'COMPLETED' ? bytes(c.bytes) : '' }),
    el('td', { class: 'num', text: c.acks || '' }),
    el('td', { class: 'error', text: c.failure || '' })));
  out.push(el('div', { class: 'panel', id: `checkpoints-${p.id}` },
    el('div', { class: 'meta' },
      el('span', { text: `${num(cps.completed)} checkpoints completed` }),
      el('span', { text: `${num(cps.failed)} failed` }),
      p.restoredFrom ? el('span', { text: `running from checkpoint ${p.restoredFrom}` }) : null,
      el('span', { text: `runners: ${p.runners.join(', ') || '—'}` })),
    rows.length
      ? el('table', {}, el('thead', {}, el('tr', {}, ...['ID', 'State', 'Triggered', 'Duration', 'Size', 'Tasks', 'Failure'].map((h, i) => el('th', { class: [0, 3, 4, 5].includes(i) ? 'num' : null, text: h })))), el('tbody', {}, ...rows))
      : el('p', { class: 'muted', text: 'No checkpoint yet.' })));
  const restarts = el('div', { class: 'panel', id: `failovers-${p.id}` },
    el('div', { class: 'meta' }, el('span', { text: `${p.restarts} restart${p.restarts === 1 ? '' : 's'}` })));
  if (p.failovers.length) {
    restarts.append(el('table', {},
      el('thead', {}, el('tr', {}, el('th', { text: 'When' }), el('th', { text: 'Attempt' }), el('th', { text: 'Cause' }))),
      el('tbody', {}, ...p.failovers.slice().reverse().map((f) => el('tr', {}, el('td', { text: time(f.at) }), el('td', { text: f.epoch }), el('td', { class: 'error', text: f.cause }))))));
  } else if (p.lastFailure) {
    restarts.append(el('p', { class: 'error', text: p.lastFailure }));
  }
  if (p.error) restarts.append(el('p', { class: 'error', text: p.error }));
  out.push(restarts);
  return out;
}

// ---- the cluster ----

function clusterPage() {
  put(main, el('h1', { text: 'Cluster' }), el('div', { id: 'cluster' }));
  page(async (current) => {
    const [o, runners] = await Promise.all([call('overview'), call('runners')]);
    if (!current()) return;
    clearError();
    const card = (label, value, id) => el('div', { class: 'card', id }, el('b', { text: value }), el('span', { class: 'muted', text: label }));
    const lost = runners.filter((r) => r.state === 'LOST').length;
    const body = runners.map((r) => el('tr', { 'data-runner': r.id, class: r.state === 'LOST' ? 'lost' : null },
      el('td', { text: r.id }),
      el('td', {}, state(r.state)),
      el('td', {}, el('span', { class: 'slots' }, el('i', { style: `width: ${r.slots ? (100 * r.used) / r.slots : 0}%` })), `${r.used} / ${r.slots}`),
      el('td', {}, ...r.jobs.map((j) => el('div', {}, el('a', { href: `#/jobs/${j.jobId}`, text: `job ${j.jobId}` }), ` p${j.pipeline}: ${j.slots} slot${j.slots === 1 ? '' : 's'}`))),
      el('td', {}, ...Object.entries(r.tags).map(([k, v]) => el('span', { class: 'tag', text: `${k}=${v}` }))),
      el('td', { class: 'num', text: r.cpu === undefined ? '' : pct(r.cpu) }),
      el('td', { class: 'num', text: r.memory === undefined ? '' : pct(r.memory) }),
      el('td', { class: 'muted', text: r.address || '' }),
      el('td', { class: 'muted', text: time(r.started) })));
    put(document.getElementById('cluster'), 
      el('div', { class: 'cards' },
        card('runners', o.workers, 'card-runners'), card('lost runners', lost, 'card-lost'),
        card('slots', o.totalSlot, 'card-slots'), card('free slots', o.unassignedSlot, 'card-free'),
        card('running jobs', o.runningJobs), card('finished', o.finishedJobs), card('failed', o.failedJobs), card('canceled', o.cancelledJobs)),
      el('div', { class: 'panel' }, el('table', { id: 'runners' },
        el('thead', {}, el('tr', {}, ...['Runner', 'State', 'Slots used', 'Jobs', 'Tags', 'CPU', 'Memory', 'Exchange', 'Started'].map((h, i) => el('th', { class: i === 5 || i === 6 ? 'num' : null, text: h })))),
        el('tbody', {}, ...(body.length ? body : [el('tr', {}, el('td', { colspan: 9, class: 'muted', text: 'No runner has registered.' }))])))));
  });
}

// ---- routing ----

async function route() {
  generation++;
  const parts = (location.hash.replace(/^#\/?/, '') || 'jobs').split('/');
  for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('on', a.dataset.nav === parts[0]);
  try {
    settings = await call('ui-settings');
  } catch (e) {
    if (e instanceof AuthError) return signIn(token() ? 'The token was refused: ' + e.message : '');
    put(main, el('p', { class: 'error', text: String(e.message || e) }));
    return;
  }
  document.getElementById('version').textContent = settings.version ? 'v' + settings.version : '';
  document.getElementById('signout').hidden = !token();
  if (parts[0] === 'jobs' && parts[1]) return jobPage(parts[1], parts[2]);
  if (parts[0] === 'cluster') return clusterPage();
  return jobsPage();
}

document.getElementById('theme').addEventListener('click', () => {
  const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
  document.documentElement.dataset.theme = next;
  localStorage.setItem('strait.theme', next);
});
document.getElementById('signout').addEventListener('click', () => {
  setToken('');
  route();
});
window.addEventListener('hashchange', route);
route();
