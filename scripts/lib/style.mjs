// Colour only when a person is watching: a terminal, and NO_COLOR not set (https://no-color.org).
const enabled = Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env);

const paint = (open, close) => (text) => (enabled ? `\x1b[${open}m${text}\x1b[${close}m` : String(text));

export const style = {
  bold: paint(1, 22),
  dim: paint(2, 22),
  red: paint(31, 39),
  green: paint(32, 39),
  yellow: paint(33, 39),
  blue: paint(34, 39),
  magenta: paint(35, 39),
  cyan: paint(36, 39),
};
