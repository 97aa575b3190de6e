export { accountQueryOptions, useAccount } from "./api/account-query";
export { cycleUsageQueryOptions } from "./api/cycle-usage-query";
