// One replica of a deployment for the metrics tests, without Cube: the built package's ready-made hook, configured
// by this process's environment as in a Cube process (its secrets directory and metrics listener included), called
// as Cube calls it (checkAuth, checkSqlAuth), on its parent's messages. test/support/hook-replicas.ts starts it.
const { checkAuth, checkSqlAuth } = require(process.env.HOOK_REPLICA_PACKAGE);

const CALLS = {
  checkAuth: (req, token) => checkAuth(req, token),
  checkSqlAuth: (req, user, password) => checkSqlAuth(req, user, password),
  prefetch: () => checkAuth.prefetch(),
};

process.on('message', ({ id, call, args }) => {
  Promise.resolve()
    .then(() => CALLS[call](...args))
    .then(
      () => process.send({ id, ok: true }),
      (error) => process.send({ id, ok: false, message: String(error && error.message) }),
    );
});
// The parent gone, the replica goes too: no process is left behind.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
