export { accountQueryOptions, useAccount } from "./api/account-query";
export { cycleUsageQueryOptions, useUpdateAccountName } from "./api/account";
