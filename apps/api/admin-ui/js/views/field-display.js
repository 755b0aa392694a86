/**
 * One field of an object as the object view shows it: a formatted value; a history field as a
 * timeline (`{current, history: [{value, validFrom, modifiedBy}]}`, newest first); a FILE or IMAGE
 * value with its name, size, a download button and, for an image, a preview. Downloads ask
 * `GET /data/{tenant}/download/{objectId}/{fileId}` for a short-lived `/binaries/<token>` address
 * (the token is the credential there; no key is ever sent to it).
 */
import { get, tenantPath } from '../api.js';
import { alertBox, h } from '../dom.js';
import { formatBytes, formatTimestamp, formatValue, isFile, isHistory } from '../format.js';

/** The same-origin path of a `/binaries/<token>` address the API answers with (an absolute URL). */
async function binaryPath(objectId, file) {
  const fileId = file.href.split('/').pop();
  const url = await get(tenantPath('data', 'download', objectId, fileId));
  return new URL(url, location.origin).pathname;
}

function fileItem(field, objectId, file) {
  const message = h('span');
  const preview = h('div', { class: 'preview' });
  const open = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-download': field.name,
      onclick: async () => {
        message.replaceChildren();
        try {
          const link = h('a', { href: await binaryPath(objectId, file), download: file.fileName });
          document.body.append(link);
          link.click();
          link.remove();
        } catch (error) {
          message.replaceChildren(alertBox(`${error.status ?? ''} ${error.message}`));
        }
      },
    },
    'Download',
  );
  if (field.type === 'IMAGE' || String(file.contentType).startsWith('image/')) {
    binaryPath(objectId, file).then(
      (src) =>
        preview.replaceChildren(
          h('img', { src, alt: `${field.label}: ${file.fileName}`, 'data-preview': field.name }),
        ),
      () => preview.replaceChildren(),
    );
  }
  return h(
    'div',
    { class: 'file' },
    h('span', { 'data-file-name': field.name }, file.fileName),
    ' ',
    h('span', { class: 'muted' }, `${formatBytes(file.size)}, ${file.contentType}`),
    ' ',
    open,
    message,
    preview,
  );
}

function timeline(field, value) {
  return h(
    'div',
    {},
    h('div', { 'data-current': field.name }, formatValue(field, value.current)),
    h(
      'ol',
      { class: 'timeline', 'data-timeline': field.name, 'aria-label': `History of ${field.label}` },
      value.history.map((entry) =>
        h(
          'li',
          {},
          h('time', { datetime: entry.validFrom }, formatTimestamp(entry.validFrom)),
          ' ',
          h('strong', {}, formatValue(field, entry.value)),
          ' ',
          h('span', { class: 'muted' }, `by ${entry.modifiedBy}`),
        ),
      ),
    ),
  );
}

/** The content of a field's `<dd>`. */
export function fieldContent(field, objectId, value) {
  if (isHistory(value)) return timeline(field, value);
  if (isFile(value)) return fileItem(field, objectId, value);
  if (Array.isArray(value) && value.every(isFile))
    return value.map((file) => fileItem(field, objectId, file));
  return formatValue(field, value);
}
