// Cube logs the raw Authorization value of every refused request. Nothing we print or keep may
// contain a token or a secret, so every line from a child process goes through here first.
const JWT_SHAPED = /eyJ[\w-]*\.[\w-]*\.[\w-]*/g;

/** Returns a function that masks tokens (anything JWT-shaped) and the given secrets in a line. */
export function createRedactor(secrets = []) {
  const known = secrets.filter((secret) => typeof secret === 'string' && secret.length >= 8);
  return (line) => {
    let safe = line.replace(JWT_SHAPED, '[token]');
    for (const secret of known) safe = safe.split(secret).join('[secret]');
    return safe;
  };
}
