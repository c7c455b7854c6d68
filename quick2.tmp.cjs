const { createSecretKey } = require('node:crypto');
const jwt = require('jsonwebtoken');
const { createCheckAuth } = require('./dist/index.js');
const secret = 'x'.repeat(48);
const key = createSecretKey(Buffer.from(secret));
const N = 20000;
const now = Math.floor(Date.now()/1000);
const tokens = Array.from({length: N}, (_, i) => jwt.sign({ tenant: 'acme', i, iat: now, exp: now + 3600 }, key, { algorithm: 'HS256' }));
const hook = createCheckAuth({ apiSecret: secret, tokenCacheSize: 0 });
const req = { headers: { 'request-origin': 'embeddable' } };
async function time(fn) { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) await fn(tokens[i]); return Number(process.hrtime.bigint() - t) / N / 1000; }
(async () => {
for (let r = 0; r < 4; r++) {
  const lib = await time(async (t) => jwt.verify(t, key, { algorithms: ['HS256'] }));
  const ours = await time((t) => hook(req, t));
  console.log('lib', lib.toFixed(2), 'ours', ours.toFixed(2), 'ratio', (ours/lib).toFixed(2));
}})();
