/**
 * Model and rebuild (`#/model`, admin only): the model's load status with its errors and warnings
 * (`GET /admin/{tenant}/modelStatus`) and the download of its files upgraded to the current format
 * (`GET /admin/{tenant}/modelUpgrade`, a zip fetched with the key in the header); the tenant rebuild
 * and a class's recalculation (`POST` starts one, `GET` is polled while it runs, shown as a
 * progress bar with its counts).
 */
import { call, download, get, tenantPath } from '../api.js';
import { errorBox, h, show } from '../dom.js';
import { classLabel, formatTimestamp } from '../format.js';
import { adminTabs } from './admin-tabs.js';

const POLL_MS = 500;

function statusList(entries) {
  return h(
    'dl',
    { class: 'props' },
    entries.map(([label, value, id]) => [h('dt', {}, label), h('dd', { id }, value ?? '-')]),
  );
}

/**
 * A long-running job of one kind (`rebuild`, `recalculate`): its state, a progress bar when its
 * total is known, and a start button; polls while it runs and while the view is shown.
 * `start()` sends the POST and answers its response.
 */
function jobPanel({ kind, label, active, start, controls = [] }) {
  const details = h('div', { id: `${kind}-status` });
  const message = h('div');
  const button = h('button', { type: 'button', id: `start-${kind}` }, label);
  const render = (job) => {
    const bar =
      job.state === 'running' && job.total
        ? h('progress', {
            id: `${kind}-progress`,
            max: String(job.total),
            value: String(Math.min(job.processed, job.total)),
            'aria-label': `${label}: ${job.processed} of ${job.total}`,
          })
        : null;
    details.replaceChildren(
      statusList([
        ['State', job.state, `${kind}-state`],
        ...(job.typeName ? [['Class', classLabel(job.typeName)]] : []),
        ['Phase', job.phase],
        [
          'Processed',
          job.total ? `${job.processed} of ${job.total}` : String(job.processed),
          `${kind}-processed`,
        ],
        ['Started', job.startedAt ? formatTimestamp(job.startedAt) : null],
        ['Finished', job.finishedAt ? formatTimestamp(job.finishedAt) : null],
        ['Error', job.error],
      ]),
      ...(bar === null ? [] : [bar]),
    );
    button.disabled = job.state === 'running';
  };
  const poll = async () => {
    if (!active()) return;
    const job = await get(tenantPath('admin', kind));
    if (!active()) return;
    render(job);
    if (job.state === 'running') setTimeout(poll, POLL_MS);
  };
  button.addEventListener('click', async () => {
    message.replaceChildren();
    button.disabled = true;
    try {
      const { body } = await start();
      render(body);
      setTimeout(poll, POLL_MS);
    } catch (error) {
      message.replaceChildren(errorBox(error));
      button.disabled = false;
    }
  });
  return {
    element: h('div', {}, details, h('div', { class: 'toolbar' }, controls, button), message),
    show: (job) => {
      render(job);
      if (job.state === 'running') setTimeout(poll, POLL_MS);
    },
  };
}

function issuesTable(issues) {
  if (issues.length === 0) return h('p', { class: 'muted', id: 'model-clean' }, 'No errors or warnings.');
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { id: 'model-issues' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Severity', 'File', 'Path', 'Message'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        issues.map((issue) =>
          h(
            'tr',
            { 'data-severity': issue.severity },
            h('td', {}, issue.severity),
            h('td', {}, issue.file),
            h('td', {}, issue.path),
            h('td', {}, issue.message),
          ),
        ),
      ),
    ),
  );
}

export async function modelView(active) {
  const [status, rebuild, recalculation, classes] = await Promise.all([
    get(tenantPath('admin', 'modelStatus')),
    get(tenantPath('admin', 'rebuild')),
    get(tenantPath('admin', 'recalculate')),
    get(tenantPath('metadata', 'classes')).catch(() => ({ classes: [] })),
  ]);
  const downloadMessage = h('div');
  const upgrade = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'model-upgrade',
      onclick: async () => {
        downloadMessage.replaceChildren();
        try {
          await download(tenantPath('admin', 'modelUpgrade'), 'model-upgrade.zip');
        } catch (error) {
          downloadMessage.replaceChildren(errorBox(error));
        }
      },
    },
    'Download the upgraded model files',
  );
  const rebuildPanel = jobPanel({
    kind: 'rebuild',
    label: 'Rebuild the tenant',
    active,
    start: () => call('POST', tenantPath('admin', 'rebuild')),
  });
  const classChoice = h(
    'select',
    { id: 'recalculate-class', 'aria-label': 'Class to recalculate' },
    classes.classes.map((cls) => h('option', { value: cls.name }, classLabel(cls.name))),
  );
  const recalculatePanel = jobPanel({
    kind: 'recalculate',
    label: 'Recalculate',
    active,
    controls: [classChoice],
    start: () => call('POST', tenantPath('admin', classChoice.value, 'recalculate')),
  });

  show(
    adminTabs('#/model'),
    h('h1', {}, 'Model and rebuild'),
    h('h2', {}, 'Model status'),
    statusList([
      ['State', status.state, 'model-state'],
      ['Checked at', status.checkedAt ? formatTimestamp(status.checkedAt) : null],
      ['Errors', String(status.errors.length), 'model-errors'],
      ['Warnings', String(status.warnings.length), 'model-warnings'],
      ['Files in an older format', String(status.upgradableFiles), 'model-upgradable'],
    ]),
    issuesTable([...status.errors, ...status.warnings]),
    h(
      'p',
      { class: 'muted' },
      'The upgrade is a zip of every model file written in an older format, converted to the current one, with a report of every error and warning.',
    ),
    h('div', { class: 'toolbar' }, upgrade),
    downloadMessage,
    h('h2', {}, 'Rebuild'),
    h(
      'p',
      { class: 'muted' },
      'Re-derives index rows, the full-text index and access-control rows from the stored objects.',
    ),
    rebuildPanel.element,
    h('h2', {}, 'Recalculate'),
    h(
      'p',
      { class: 'muted' },
      "Runs a class's formulas again on every object (after a formula changed, or for formulas that read the clock or system settings), and the formulas of the objects that read them.",
    ),
    recalculatePanel.element,
  );
  rebuildPanel.show(rebuild);
  recalculatePanel.show(recalculation);
}
