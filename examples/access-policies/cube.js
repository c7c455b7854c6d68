// cube.js of a Cube 1.x project whose model holds data access policies: the README's whole set-up. The hook gives both
// callers' security contexts one `tenant` and one set of `groups` (configured by the environment, see README.md),
// contextToGroups hands the groups to the policies of model/, and logger keeps every token out of Cube's log.
// The data source comes from Cube's own environment (CUBEJS_DB_TYPE, CUBEJS_DB_NAME, ...), as in any project.
const { checkAuth, contextToGroups, logger } = require('cube-dual-auth');
module.exports = { checkAuth, contextToGroups, logger };
