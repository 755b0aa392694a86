/**
 * The input of a FILE or IMAGE field (docs/files.md): the held file(s) by name, a file chooser, and
 * for each chosen file `GET /data/{tenant}/upload` (a one-time `/binaries/<token>` address) and a
 * multipart `POST` of its bytes there, with a progress bar. The upload's descriptor
 * (`{href, fileName, contentType, size}`) is what the form sends; the token is the credential of
 * `/binaries`, so no key goes with the bytes.
 */
import { get, tenantPath } from '../api.js';
import { h } from '../dom.js';
import { formatBytes } from '../format.js';

/** Posts one file to an upload address, reporting progress (0..1); resolves its descriptor. */
function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      if (request.status === 200 && Array.isArray(request.response)) resolve(request.response[0]);
      else reject(new Error(request.response?.detail ?? `upload failed (${request.status})`));
    });
    request.addEventListener('error', () => reject(new Error('upload failed (network)')));
    const body = new FormData();
    body.append('file', file, file.name);
    request.send(body);
  });
}

/**
 * `{element, input, value(), changed(), pending()}`: `value()` is the descriptor (or the list of
 * them for a multiple field; null when emptied), `pending()` true while an upload runs.
 */
export function fileInput(field, held) {
  const initial = held === undefined || held === null ? [] : Array.isArray(held) ? held : [held];
  let files = [...initial];
  let uploading = 0;
  const id = `field-${field.name}`;
  const list = h('ul', { class: 'files', 'data-files': field.name });
  const progress = h('progress', {
    max: '1',
    value: '0',
    hidden: true,
    'aria-label': `Upload of ${field.label}`,
    id: `${id}-progress`,
  });
  const status = h('span', { class: 'muted', role: 'status' });
  const input = h('input', {
    type: 'file',
    id,
    name: field.name,
    multiple: field.multiple,
    accept: field.type === 'IMAGE' ? 'image/*' : null,
    'aria-describedby': `${id}-error`,
  });
  const renderList = () =>
    list.replaceChildren(
      ...files.map((file, index) =>
        h(
          'li',
          {},
          h('span', { 'data-uploaded': field.name }, file.fileName),
          ' ',
          h('span', { class: 'muted' }, formatBytes(file.size)),
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Remove ${file.fileName}`,
              onclick: () => {
                files.splice(index, 1);
                renderList();
              },
            },
            'Remove',
          ),
        ),
      ),
    );
  input.addEventListener('change', async () => {
    const chosen = [...input.files];
    input.value = '';
    for (const file of chosen) {
      uploading += 1;
      progress.hidden = false;
      progress.value = 0;
      status.textContent = `Uploading ${file.name}…`;
      try {
        const address = await get(tenantPath('data', 'upload'));
        const descriptor = await upload(new URL(address, location.origin).pathname, file, (share) => {
          progress.value = share;
        });
        files = field.multiple ? [...files, descriptor] : [descriptor];
        status.textContent = `Uploaded ${descriptor.fileName}.`;
      } catch (error) {
        status.textContent = `${file.name}: ${error.message}`;
      } finally {
        uploading -= 1;
        progress.hidden = uploading === 0;
        renderList();
      }
    }
  });
  renderList();
  return {
    input,
    element: h('div', { class: 'file-input' }, list, input, progress, status),
    value: () => (field.multiple ? files : (files[0] ?? null)),
    changed: () => JSON.stringify(files) !== JSON.stringify(initial),
    pending: () => uploading > 0,
  };
}
