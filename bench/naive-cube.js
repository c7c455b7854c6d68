// THE BASELINE of `npm run bench:e2e`, not a recommendation: the example Cube project with the
// checkAuth most deployments start from instead of cube-dual-auth. The HS256 branch is the snippet
// the embedding service publishes (jsonwebtoken 9 with the API secret as a string); the RS256
// branch is the usual jwks-rsa recipe (getSigningKey(kid), then jsonwebtoken with the key as a PEM
// string, jwks-rsa's default cache). Do not copy it: it verifies every request from scratch,
// answers refused tokens with 500s and stack traces instead of 403s, and does not limit the
// algorithms on the key-set path.
//
// bench/e2e.mjs copies this file to .cache/naive-cube/cube.js and the example's cube.js beside it as example-cube.js,
// next to links to the example's model/, data/ and packages (jsonwebtoken 9 and jwks-rsa 3 are the ones cube-dual-auth
// brought into the example; Cube 0.33's own jsonwebtoken 8.5.1 is not the one a project installing jsonwebtoken today
// gets). Everything but checkAuth is the example's own configuration, and the script checks that both Cubes return the
// same rows.
//
// The integration tests also run it on each Cube line (scripts/lib/naive-cube.mjs), as the deployment that
// `cube-dual-auth probe` must fail: its refusals are 500s with stack traces.
const jwt = require('jsonwebtoken');
const jwksClient = require('jwks-rsa');

const example = require('./example-cube');

const jwks = jwksClient({ jwksUri: process.env.CUBEJS_JWK_URL });

module.exports = {
  ...example,
  checkAuth: async (req, token) => {
    if (req.headers['request-origin'] === 'embeddable') {
      req.securityContext = jwt.verify(token, process.env.CUBEJS_API_SECRET);
      return;
    }
    const { header } = jwt.decode(token, { complete: true }) ?? {};
    const key = await jwks.getSigningKey(header?.kid);
    const payload = jwt.verify(token, key.getPublicKey(), {
      audience: process.env.CUBEJS_JWT_AUDIENCE,
      issuer: process.env.CUBEJS_JWT_ISSUER,
    });
    const namespace = process.env.CUBEJS_JWT_CLAIMS_NAMESPACE;
    req.securityContext = namespace ? payload[namespace] : payload;
  },
};
