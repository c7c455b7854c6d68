// Progress for steps that take a while: a live elapsed-time line on a terminal, a start line and
// a heartbeat every 15 s elsewhere (CI logs), so a long install never looks like a hang.
import { style } from './style.mjs';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const HEARTBEAT_MS = 15_000;

/** Runs `work` while showing `title` with the elapsed time; prints ✓ or ✗ with the duration at the end. */
export async function withProgress(title, work, { out = process.stdout } = {}) {
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  const live = Boolean(out.isTTY);
  let frame = 0;
  const redraw = () => out.write(`\r  ${style.cyan(FRAMES[frame++ % FRAMES.length])} ${title} ${style.dim(elapsed())}`);
  if (live) redraw();
  else out.write(`  … ${title}\n`);
  const timer = live
    ? setInterval(redraw, 100)
    : setInterval(() => out.write(`    still working: ${title} (${elapsed()})\n`), HEARTBEAT_MS);
  try {
    const result = await work();
    finish(style.green('✓'));
    return result;
  } catch (error) {
    finish(style.red('✗'));
    throw error;
  } finally {
    clearInterval(timer);
  }

  function finish(mark) {
    clearInterval(timer);
    out.write(`${live ? '\r\x1b[2K' : ''}  ${mark} ${title} ${style.dim(elapsed())}\n`);
  }
}
