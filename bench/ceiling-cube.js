// THE CEILING of `npm run bench:e2e`, never a hook to deploy: the example Cube project with a
// checkAuth that verifies nothing. It reads the one header that chooses the path and hands Cube a
// fixed security context for that path (the same tenant and region the real tokens carry), so
// Cube runs the same query and returns the same rows as with a real hook. No hook can make Cube
// answer faster than this; cube-dual-auth's requests/s are reported as a fraction of it.
//
// bench/e2e.mjs copies this file to .cache/ceiling-cube/cube.js and the example's cube.js beside it as
// example-cube.js, next to links to the example's model/, data/ and packages, and passes the two contexts in
// BENCH_CEILING_SECURITY_CONTEXTS (JSON: { service, app }), taken from the same place as the claims of the tokens it
// sends. Everything but checkAuth is the example's own configuration (its tenant filter, contextToAppId and logger),
// and the script checks that every Cube returns the same rows.
const example = require('./example-cube');

const contexts = JSON.parse(process.env.BENCH_CEILING_SECURITY_CONTEXTS);

module.exports = {
  ...example,
  checkAuth: (req) => {
    req.securityContext = req.headers['request-origin'] === 'embeddable' ? contexts.service : contexts.app;
  },
};
