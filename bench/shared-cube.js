// ONE CUBE, TWO HOOKS, for `npm run bench:e2e` only, never to deploy: the example Cube project whose checkAuth is
// cube-dual-auth, except for requests with the header `x-bench-hook: ceiling`, which get the ceiling of
// bench/ceiling-cube.js (no verification, a fixed security context). Measured by turns like every other case, the two
// hooks share one process: its ratio has no part of the difference between two Cube processes, which the control
// (the ceiling in two processes) shows to be larger than what the target judges.
//
// bench/e2e.mjs copies this file to .cache/shared-cube/cube.js and the example's cube.js beside it as example-cube.js,
// next to links to the example's model/, data/ and packages, and passes the ceiling's two contexts in
// BENCH_CEILING_SECURITY_CONTEXTS, as for the ceiling.
const example = require('./example-cube');

const contexts = JSON.parse(process.env.BENCH_CEILING_SECURITY_CONTEXTS);

function ceiling(req) {
  req.securityContext = req.headers['request-origin'] === 'embeddable' ? contexts.service : contexts.app;
}

module.exports = {
  ...example,
  // Both hooks pay for this one header read.
  checkAuth: (req, auth) => (req.headers['x-bench-hook'] === 'ceiling' ? ceiling(req) : example.checkAuth(req, auth)),
};
