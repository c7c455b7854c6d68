// Loaded with `node --require` before a bin: when the process exits, its peak resident memory
// (process.resourceUsage().maxRSS, in KiB) is written to standard error as the last line, for a test to bound.
process.on('exit', () => {
  require('node:fs').writeSync(2, `\nmax-rss-kib ${process.resourceUsage().maxRSS}\n`);
});
