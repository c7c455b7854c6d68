// A running hook over a secrets directory, in a process of its own so that its memory can be bounded: the built
// package's createCheckAuth with CUBE_DUAL_AUTH_SECRETS_DIR, behind an HTTP server on 127.0.0.1. GET /health answers
// at once with the process's memory; GET /check runs the hook on the service's token given as `authorization`.
'use strict';
const http = require('node:http');
const { createCheckAuth } = require(process.env.PACKAGE_DIR);

const hook = createCheckAuth({ secretsDir: process.env.SECRETS_DIR, secretsPollMs: 200 });
const server = http.createServer((req, res) => {
  if (req.url === '/health') {
    res.end(JSON.stringify({ rss: process.memoryUsage().rss, maxRss: process.resourceUsage().maxRSS * 1024 }));
    return;
  }
  hook({ headers: { 'request-origin': 'embeddable' } }, req.headers.authorization).then(
    () => res.end('accepted'),
    (error) => {
      res.statusCode = 403;
      res.end(error.message);
    },
  );
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => {
  hook.close();
  server.close(() => process.exit(0));
});
