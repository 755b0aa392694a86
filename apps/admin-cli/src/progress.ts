/**
 * The progress bar of a long `odp` command (recalculate, sync), on stderr so that `--json` keeps
 * stdout to one JSON object: redrawn in place on a terminal, otherwise one line per tenth done
 * (logs and pipes get a readable record, not thousands of carriage returns).
 */
import type { RebuildStatus } from '@odp/acl';

const WIDTH = 30;

export type ProgressBar = (status: RebuildStatus) => void;

/** One line of progress: `label [#####-----] 150/300 50%` (no bar while the total is unknown). */
export function progressLine(label: string, status: RebuildStatus): string {
  const { processed, total } = status;
  if (total === null) return `${label} ${processed}`;
  const ratio = total === 0 ? 1 : Math.min(1, processed / total);
  const filled = Math.round(ratio * WIDTH);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${processed}/${total} ${Math.floor(ratio * 100)}%`;
}

export function progressBar(write: (text: string) => void, tty: boolean, label: string): ProgressBar {
  let lastTenth = -1;
  let lastLine = '';
  return (status) => {
    const finished = status.state !== 'running';
    const line = progressLine(label, status);
    if (tty) {
      if (line !== lastLine || finished) write(`\r${line}${finished ? '\n' : ''}`);
      lastLine = line;
      return;
    }
    const { processed, total } = status;
    const tenth = total === null || total === 0 ? 0 : Math.floor((10 * processed) / total);
    if (tenth > lastTenth || (finished && line !== lastLine)) {
      write(`${line}\n`);
      lastTenth = tenth;
      lastLine = line;
    }
  };
}
