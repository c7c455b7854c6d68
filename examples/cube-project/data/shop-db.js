// The example's data: a few orders from two tenants in two regions, held in an in-memory
// SQLite database that is created when Cube starts, so the project needs no database server.
const sqlite3 = require('sqlite3');

const SEED_SQL = `
  CREATE TABLE orders (
    id         INTEGER PRIMARY KEY,
    tenant     TEXT NOT NULL,
    region     TEXT NOT NULL,
    product    TEXT NOT NULL,
    amount     INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  INSERT INTO orders (id, tenant, region, product, amount, created_at) VALUES
    (1, 'acme',   'emea', 'Rocket skates',  120, '2024-01-03'),
    (2, 'acme',   'emea', 'Anvil',           80, '2024-01-09'),
    (3, 'acme',   'amer', 'Giant magnet',   200, '2024-02-14'),
    (4, 'acme',   'amer', 'Rocket skates',  120, '2024-03-01'),
    (5, 'globex', 'emea', 'Doomsday device', 990, '2024-01-20'),
    (6, 'globex', 'emea', 'Hammock',         45, '2024-02-02'),
    (7, 'globex', 'apac', 'Hammock',         45, '2024-02-28'),
    (8, 'initech','amer', 'Stapler',         15, '2024-03-15');
`;

let shopDatabase;

/** A new database holding the orders, then what `moreSql` adds: one of a deployment with a database per tenant. */
function createShopDatabase(moreSql = '') {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(':memory:');
    db.exec(SEED_SQL + moreSql, (error) => (error ? reject(error) : resolve(db)));
  });
}

/** The one shared database, seeded before anyone can query it. */
function openShopDatabase() {
  shopDatabase ??= createShopDatabase();
  return shopDatabase;
}

module.exports = { createShopDatabase, openShopDatabase };
