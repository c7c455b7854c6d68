const { createSecretKey } = require('node:crypto');
const jwt = require('jsonwebtoken');
const { createCheckAuth } = require('./dist/index.js');
const { decodeToken } = require('./dist/token.js');
const secret = 'x'.repeat(48);
const key = createSecretKey(Buffer.from(secret));
const N = 20000;
const now = Math.floor(Date.now()/1000);
const tokens = Array.from({length: N}, (_, i) => jwt.sign({ tenant: 'acme', i, iat: now, exp: now + 3600 }, key, { algorithm: 'HS256' }));
const hook = createCheckAuth({ apiSecret: secret, tokenCacheSize: 0 });
const hookCache = createCheckAuth({ apiSecret: secret });
const req = { headers: { 'request-origin': 'embeddable' } };
function time(fn) { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) fn(tokens[i]); return Number(process.hrtime.bigint() - t) / N / 1000; }
const opts = { algorithms: ['HS256'], clockTolerance: 5, clockTimestamp: 0 };
for (let r = 0; r < 4; r++) {
  const lib = time((t) => jwt.verify(t, key, { algorithms: ['HS256'] }));
  const dec = time((t) => decodeToken(t, 'shared-secret'));
  const ours = time((t) => hook(req, t));
  const cached = time((t) => hookCache(req, t));
  console.log('lib', lib.toFixed(2), 'decode', dec.toFixed(2), 'ours', ours.toFixed(2), 'cache-fill', cached.toFixed(2), 'ratio', (ours/lib).toFixed(2));
}
