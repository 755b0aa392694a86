/**
 * What the open view does with a change event (js/live.js): an object view shows the object again
 * when it changed, says so when it was deleted or merged away (with a link to the survivor); a list
 * shows itself again when an object of its class was created, changed or deleted. A list whose
 * search box or another input has the focus is not redrawn under the typing: it offers a Refresh
 * button instead. An object this tab wrote itself in the last seconds is already on screen as saved:
 * its own events redraw nothing.
 */
import { wroteLately } from '../api.js';
import { alertBox, h, navigate, notice, viewOf } from '../dom.js';
import { fieldLabel } from '../format.js';
import { eventPath, onChange } from '../live.js';

/** Events of one burst (an import, a cascade) redraw a list once. */
const BURST_MS = 400;

function isObject(href, id) {
  return href !== undefined && eventPath(href).endsWith(`/${id}`);
}

/** Live updates of one object's view; `status` is where a deletion is announced. */
export function followObject(id, status) {
  onChange((event) => {
    if (wroteLately(id)) return;
    if (event.type === 'merge' && isObject(event.loser, id)) {
      status.replaceChildren(
        h(
          'div',
          { class: 'alert', role: 'alert', id: 'live-gone' },
          'This object was merged into another just now: ',
          h('a', { href: viewOf(event.href) }, 'open the survivor'),
        ),
      );
      return;
    }
    if (!isObject(event.href, id)) return;
    if (event.type === 'delete') {
      status.replaceChildren(alertBox('This object was deleted just now.'));
      return;
    }
    const changed = (event.changed ?? []).map((name) => fieldLabel({ name }));
    notice(changed.length === 0 ? 'Updated just now.' : `Updated just now: ${changed.join(', ')}.`);
    navigate(location.hash);
  });
}

/** Live updates of a list of `className` objects; `bar` holds the Refresh offer. */
export function followList(className, bar) {
  let timer = null;
  const redraw = () => {
    const typing = document.activeElement?.closest('#main input, #main select, #main textarea');
    if (!typing) {
      navigate(location.hash);
      return;
    }
    bar.replaceChildren(
      h(
        'div',
        { class: 'notice', role: 'status' },
        'The list changed. ',
        h(
          'button',
          { type: 'button', id: 'live-refresh', onclick: () => navigate(location.hash) },
          'Refresh',
        ),
      ),
    );
  };
  onChange((event) => {
    if (!(event.classes ?? []).includes(className)) return;
    if (wroteLately(eventPath(event.href).split('/').pop())) return;
    clearTimeout(timer);
    timer = setTimeout(redraw, BURST_MS);
  });
}
